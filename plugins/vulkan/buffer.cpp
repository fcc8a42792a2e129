// Vulkan buffers: memory type choice, allocation, mapping and cache
// maintenance for non-coherent memory.
#include "buffer.hpp"

#include <algorithm>
#include <bit>

#include "device.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

using ull = unsigned long long;

void destroy_buffer(halo_object_t* object) {
  Buffer* buffer = sdk::object_cast<Buffer>(object);
  sdk::Host host = buffer->device()->host;
  host.destroy(buffer);
}

uint64_t size(halo_buffer_t* buffer) {
  return Buffer::cast(buffer)->facts().size;
}

halo_status_t map_range(halo_buffer_t* buffer, uint64_t offset,
                        uint64_t length, void** out_pointer) {
  return Buffer::cast(buffer)->map_range(offset, length, out_pointer);
}

halo_status_t unmap_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  return Buffer::cast(buffer)->unmap_range(offset, length);
}

halo_status_t flush_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  return Buffer::cast(buffer)->sync_range("halo_buffer_flush_range", true,
                                          offset, length);
}

halo_status_t invalidate_range(halo_buffer_t* buffer, uint64_t offset,
                               uint64_t length) {
  return Buffer::cast(buffer)->sync_range("halo_buffer_invalidate_range",
                                          false, offset, length);
}

halo_status_t export_handle(halo_buffer_t* buffer,
                            halo_external_handle_type_t type,
                            halo_external_handle_t* out_handle) {
  return Buffer::cast(buffer)->export_handle(type, out_handle);
}

// Picks the memory type allowed by |type_bits| whose properties include all
// of |wanted| (halo bits), preferring the fewest extra properties. Returns
// false when none qualifies.
bool pick_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                      uint32_t type_bits, halo_memory_type_t wanted,
                      uint32_t* out_index) {
  int best_extra = 64;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) == 0) continue;
    halo_memory_type_t offered =
        memory_type_bits(memory.memoryTypes[i].propertyFlags);
    if ((offered & wanted) != wanted) continue;
    int extra = std::popcount(offered & ~wanted);
    if (extra < best_extra) {
      best_extra = extra;
      *out_index = i;
    }
  }
  return best_extra != 64;
}

uint64_t align_down(uint64_t value, uint64_t alignment) {
  return value - value % alignment;
}

}  // namespace

// The entries are named vk:: because Buffer's members of the same names
// would hide them here.
const halo_buffer_vtable_t Buffer::kVtable = {
    .object = {.struct_size = sizeof(halo_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = &destroy_buffer},
    .size = &vk::size,
    .map_range = &vk::map_range,
    .unmap_range = &vk::unmap_range,
    .flush_range = &vk::flush_range,
    .invalidate_range = &vk::invalidate_range,
    .export_handle = &vk::export_handle,
};

Buffer::Buffer(Device* device, const halo_buffer_params_t& params) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      device_(device),
      mappings_(device->host) {
  facts_.size = params.size;
  facts_.usage = params.usage;
  facts_.memory_type = params.memory_type;
  device->retain();
}

Buffer::~Buffer() {
  const DeviceFunctions& vkd = device_->vkd;
  if (buffer_ != VK_NULL_HANDLE) {
    vkd.vkDestroyBuffer(device_->device, buffer_, nullptr);
  }
  // Freeing the memory also ends its mapping.
  if (memory_ != VK_NULL_HANDLE) {
    vkd.vkFreeMemory(device_->device, memory_, nullptr);
  }
  device_->release();
}

halo_status_t Buffer::create_vk_buffer(uint64_t size,
                                       VkExternalMemoryHandleTypeFlags external,
                                       Needs* needs) noexcept {
  const DeviceFunctions& vkd = device_->vkd;
  VkExternalMemoryBufferCreateInfo external_info = {};
  external_info.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external_info.handleTypes = external;
  VkBufferCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  if (external != 0) create_info.pNext = &external_info;
  create_info.size = size;
  // Every buffer may take part in the plugin's own transfers (fills through
  // staging, copies) and dispatches; halo's usage bits are enforced by the
  // shared checks at record time.
  create_info.usage = kBufferUsage;
  create_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  HALO_VK_RETURN_IF_FAILED(
      device_->host, "vkCreateBuffer",
      vkd.vkCreateBuffer(device_->device, &create_info, nullptr, &buffer_));
  VkMemoryDedicatedRequirements dedicated = {};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS;
  VkMemoryRequirements2 requirements = {};
  requirements.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
  requirements.pNext = &dedicated;
  VkBufferMemoryRequirementsInfo2 info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2;
  info.buffer = buffer_;
  vkd.vkGetBufferMemoryRequirements2(device_->device, &info, &requirements);
  needs->requirements = requirements.memoryRequirements;
  // Only shared memory is ever dedicated: the exporter and the importer
  // must agree, and both see the same rule of the same driver.
  needs->dedicated =
      external == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT &&
      (dedicated.requiresDedicatedAllocation ||
       device_->adapter->external.opaque_fd_dedicated_only);
  return HALO_OK;
}

halo_status_t Buffer::pick_type(const char* function, uint32_t type_bits,
                                halo_memory_type_t wanted,
                                uint32_t* out_index) noexcept {
  if (pick_memory_type(device_->adapter->memory, type_bits, wanted,
                       out_index)) {
    return HALO_OK;
  }
  return device_->host.make_status(
      HALO_STATUS_INVALID_ARGUMENT,
      "%s: params->memory_type 0x%x asks for properties no single memory "
      "type of the device has%s",
      function, wanted,
      host_pointer_ != nullptr ? " for this host allocation" : "");
}

halo_status_t Buffer::allocate_memory(const char* function, const char* source,
                                      const VkMemoryAllocateInfo& info) noexcept {
  const VkResult result = device_->vkd.vkAllocateMemory(device_->device, &info,
                                                        nullptr, &memory_);
  if (result != VK_SUCCESS) {
    memory_ = VK_NULL_HANDLE;
    return device_->host.make_status(
        result_code(result), "%s: vkAllocateMemory%s failed: %s (%d)",
        function, source, result_name(result), static_cast<int>(result));
  }
  allocation_size_ = info.allocationSize;
  const VkMemoryPropertyFlags flags =
      device_->adapter->memory.memoryTypes[info.memoryTypeIndex].propertyFlags;
  coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  host_visible_ = (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
  return HALO_OK;
}

halo_status_t Buffer::place(const char* function, uint64_t alignment,
                            uint64_t required_alignment,
                            bool movable) noexcept {
  // An imported host allocation is mapped already: it is the caller's
  // memory. Vulkan still needs a mapping to flush non-coherent memory.
  if (host_visible_ && (host_pointer_ == nullptr || !coherent_)) {
    HALO_SDK_RETURN_IF_ERROR(
        map_aligned(function, movable ? alignment : 1, required_alignment));
    if (host_pointer_ == nullptr &&
        reinterpret_cast<uintptr_t>(mapped_) % alignment != 0) {
      return device_->host.make_status(
          HALO_STATUS_RESOURCE_EXHAUSTED,
          "%s: the device maps the shared memory at %p, not aligned to %llu",
          function, static_cast<void*>(mapped_), static_cast<ull>(alignment));
    }
  }
  if (host_pointer_ != nullptr) {
    mapped_ = static_cast<unsigned char*>(host_pointer_);
  }
  HALO_VK_RETURN_IF_FAILED(
      device_->host, "vkBindBufferMemory",
      device_->vkd.vkBindBufferMemory(device_->device, buffer_, memory_,
                                      memory_offset_));
  return HALO_OK;
}

halo_status_t Buffer::allocate(const halo_buffer_params_t& params) noexcept {
  static const char kFunction[] = "halo_buffer_allocate";
  exportable_ = (params.flags & HALO_BUFFER_FLAG_EXPORTABLE) != 0;
  const VkExternalMemoryHandleTypeFlags external =
      exportable_ ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT : 0;
  Needs needs;
  HALO_SDK_RETURN_IF_ERROR(create_vk_buffer(params.size, external, &needs));
  uint32_t type_index = 0;
  HALO_SDK_RETURN_IF_ERROR(pick_type(kFunction,
                                     needs.requirements.memoryTypeBits,
                                     params.memory_type, &type_index));
  const bool host_visible =
      (device_->adapter->memory.memoryTypes[type_index].propertyFlags &
       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
  // A mapping must start at a multiple of the buffer's alignment. Vulkan
  // only promises minMemoryMapAlignment, so for larger alignments the memory
  // gets room to place the buffer at an aligned address inside it; not
  // exportable memory, which an importer binds from its start.
  const uint64_t alignment = std::max(
      params.alignment, device_->adapter->capabilities.min_buffer_alignment);
  const uint64_t slack =
      !exportable_ && host_visible &&
              alignment > device_->adapter->limits.min_memory_map_alignment
          ? alignment
          : 0;
  VkExportMemoryAllocateInfo export_info = {};
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
  export_info.handleTypes = external;
  VkMemoryDedicatedAllocateInfo dedicated = {};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated.buffer = buffer_;
  if (needs.dedicated) export_info.pNext = &dedicated;
  dedicated_ = exportable_ && needs.dedicated;
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  if (exportable_) allocate_info.pNext = &export_info;
  allocate_info.allocationSize = needs.requirements.size + slack;
  allocate_info.memoryTypeIndex = type_index;
  HALO_SDK_RETURN_IF_ERROR(allocate_memory(kFunction, "", allocate_info));
  return place(kFunction, alignment, needs.requirements.alignment,
               !exportable_);
}

halo_status_t Buffer::map_aligned(const char* function, uint64_t alignment,
                                  uint64_t required_alignment) noexcept {
  void* pointer = nullptr;
  HALO_VK_RETURN_IF_FAILED(
      device_->host, "vkMapMemory",
      device_->vkd.vkMapMemory(device_->device, memory_, 0, VK_WHOLE_SIZE, 0,
                               &pointer));
  const uintptr_t base = reinterpret_cast<uintptr_t>(pointer);
  memory_offset_ = (alignment - base % alignment) % alignment;
  if (memory_offset_ % required_alignment != 0) {
    return device_->host.make_status(
        HALO_STATUS_RESOURCE_EXHAUSTED,
        "%s: cannot place the buffer at a mapped address aligned to %llu "
        "(the device maps it at 0x%llx)",
        function, static_cast<ull>(alignment), static_cast<ull>(base));
  }
  mapped_ = static_cast<unsigned char*>(pointer) + memory_offset_;
  return HALO_OK;
}

halo_status_t Buffer::create(Device* device, const halo_buffer_params_t& params,
                             halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_buffer_params(host, device->adapter->capabilities, params));
  return sdk::guard(host, [&]() -> halo_status_t {
    Buffer* buffer = host.make<Buffer>(device, params);
    halo_status_t status = buffer->allocate(params);
    if (status != HALO_OK) {
      host.destroy(buffer);
      return status;
    }
    *out_buffer = reinterpret_cast<halo_buffer_t*>(buffer);
    return HALO_OK;
  });
}

halo_status_t Buffer::map_range(uint64_t offset, uint64_t length,
                                void** out_pointer) noexcept {
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_map(device_->host, facts_, offset, &length));
  HALO_SDK_RETURN_IF_ERROR(sdk::guard(
      device_->host, [&] { mappings_.add({offset, length, nullptr}); }));
  *out_pointer = mapped_ + offset;
  return HALO_OK;
}

halo_status_t Buffer::check_mapped(const char* function, uint64_t offset,
                                   uint64_t* length) noexcept {
  return sdk::check_host_range(device_->host, function, facts_, offset,
                               length);
}

halo_status_t Buffer::unmap_range(uint64_t offset, uint64_t length) noexcept {
  static const char kFunction[] = "halo_buffer_unmap_range";
  HALO_SDK_RETURN_IF_ERROR(check_mapped(kFunction, offset, &length));
  sdk::MappedRanges::Mapping mapping;
  return mappings_.remove(device_->host, kFunction, offset, length, &mapping);
}

halo_status_t Buffer::sync_range(const char* function, bool flush,
                                 uint64_t offset, uint64_t length) noexcept {
  HALO_SDK_RETURN_IF_ERROR(check_mapped(function, offset, &length));
  if (coherent_ || length == 0) return HALO_OK;
  // Non-coherent ranges must start and end on nonCoherentAtomSize, or end
  // at the allocation's end.
  const uint64_t atom = device_->adapter->limits.non_coherent_atom_size;
  VkMappedMemoryRange range = {};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = memory_;
  offset += memory_offset_;
  range.offset = align_down(offset, atom);
  const uint64_t end = align_down(offset + length + atom - 1, atom);
  range.size = end >= allocation_size_ ? VK_WHOLE_SIZE : end - range.offset;
  const DeviceFunctions& vkd = device_->vkd;
  if (flush) {
    HALO_VK_RETURN_IF_FAILED(
        device_->host, "vkFlushMappedMemoryRanges",
        vkd.vkFlushMappedMemoryRanges(device_->device, 1, &range));
  } else {
    HALO_VK_RETURN_IF_FAILED(
        device_->host, "vkInvalidateMappedMemoryRanges",
        vkd.vkInvalidateMappedMemoryRanges(device_->device, 1, &range));
  }
  return HALO_OK;
}

}  // namespace halo::vk
