// Buffers shared with other devices (halo/external.h, ABI 1.3): export of
// EXPORTABLE memory as an opaque fd (VK_KHR_external_memory_fd), and import
// of an opaque fd or of a host allocation (VK_EXT_external_memory_host) as
// a buffer that works wherever an allocated one does.
#include <unistd.h>

#include "buffer.hpp"
#include "device.hpp"
#include "halo/sdk/external.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

using ull = unsigned long long;

constexpr char kImport[] = "halo_buffer_import";

}  // namespace

halo_status_t Buffer::export_handle(
    halo_external_handle_type_t type,
    halo_external_handle_t* out_handle) noexcept {
  static const char kFunction[] = "halo_buffer_export";
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_export(
      host, kFunction, "buffer", exportable_,
      device_->adapter->capabilities.buffer_export_types, type));
  VkMemoryGetFdInfoKHR info = {};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
  info.memory = memory_;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  HALO_VK_RETURN_IF_FAILED(
      host, "vkGetMemoryFdKHR",
      device_->vkd.vkGetMemoryFdKHR(device_->device, &info, &fd));
  // The whole allocation: an importer must allocate exactly its size.
  HALO_SDK_RETURN_IF_ERROR(sdk::fill_fd_handle(host, kFunction,
                                               "vkGetMemoryFdKHR", type, fd,
                                               allocation_size_, out_handle));
  if (dedicated_) out_handle->flags = HALO_EXTERNAL_HANDLE_FLAG_DEDICATED;
  return HALO_OK;
}

sdk::BufferAccess Buffer::access(uint64_t offset, uint64_t length,
                                 bool write) const noexcept {
  if (host_pointer_ != nullptr) {
    return sdk::host_memory_access(
        static_cast<const char*>(host_pointer_) + offset, length, write);
  }
  if (exportable_ || fd_imported_) return sdk::shared_memory_access(write);
  return {this, offset, length, write};
}

halo_status_t Buffer::create_import_buffer(
    const halo_buffer_params_t& params, const halo_external_handle_t& handle,
    VkExternalMemoryHandleTypeFlagBits type, Needs* needs) noexcept {
  HALO_SDK_RETURN_IF_ERROR(create_vk_buffer(params.size, type, needs));
  if (needs->requirements.size <= handle.size) return HALO_OK;
  return device_->host.make_status(
      HALO_STATUS_INVALID_ARGUMENT,
      "%s: params->size %llu needs %llu bytes of memory, more than "
      "handle->size %llu",
      kImport, static_cast<ull>(params.size),
      static_cast<ull>(needs->requirements.size),
      static_cast<ull>(handle.size));
}

halo_status_t Buffer::import_fd(const halo_buffer_params_t& params,
                                const halo_external_handle_t& handle) noexcept {
  const auto opaque_fd = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  Needs needs;
  HALO_SDK_RETURN_IF_ERROR(
      create_import_buffer(params, handle, opaque_fd, &needs));
  // A dedicated import binds the whole memory to a buffer like the
  // exporter's: the same size (external.h).
  if (needs.dedicated && needs.requirements.size != handle.size) {
    return device_->host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: the device imports this memory only whole: params->size %llu "
        "needs %llu bytes, not handle->size %llu (the exporting buffer's)",
        kImport, static_cast<ull>(params.size),
        static_cast<ull>(needs.requirements.size),
        static_cast<ull>(handle.size));
  }
  // The exporter picked its type from the same bits with the same rule, so
  // the same memory_type finds the same memory type index here.
  uint32_t type_index = 0;
  HALO_SDK_RETURN_IF_ERROR(pick_type(kImport,
                                     needs.requirements.memoryTypeBits,
                                     params.memory_type, &type_index));
  // Vulkan takes the fd only when the import succeeds, but a later step can
  // still fail: import a copy, so that the caller's fd stays open until the
  // whole import has succeeded.
  sdk::OwnedFd fd;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::duplicate_fd(device_->host, kImport, handle.fd, &fd));
  VkMemoryDedicatedAllocateInfo dedicated = {};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated.buffer = buffer_;
  VkImportMemoryFdInfoKHR import_info = {};
  import_info.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
  if (needs.dedicated) import_info.pNext = &dedicated;
  import_info.handleType = opaque_fd;
  import_info.fd = fd.get();
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.pNext = &import_info;
  allocate_info.allocationSize = handle.size;
  allocate_info.memoryTypeIndex = type_index;
  HALO_SDK_RETURN_IF_ERROR(
      allocate_memory(kImport, " of handle->fd", allocate_info));
  fd.release();  // The memory owns it now.
  fd_imported_ = true;
  dedicated_ = needs.dedicated;
  return place(kImport, device_->adapter->capabilities.min_buffer_alignment,
               needs.requirements.alignment, /*movable=*/false);
}

halo_status_t Buffer::import_host(
    const halo_buffer_params_t& params,
    const halo_external_handle_t& handle) noexcept {
  sdk::Host host = device_->host;
  const auto host_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  host_pointer_ = handle.host_pointer;
  Needs needs;
  HALO_SDK_RETURN_IF_ERROR(
      create_import_buffer(params, handle, host_type, &needs));
  VkMemoryHostPointerPropertiesEXT pointer = {};
  pointer.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  const VkResult result = device_->vkd.vkGetMemoryHostPointerPropertiesEXT(
      device_->device, host_type, handle.host_pointer, &pointer);
  if (result != VK_SUCCESS) {
    return host.make_status(
        result_code(result),
        "%s: vkGetMemoryHostPointerPropertiesEXT of handle->host_pointer %p "
        "failed: %s (%d)",
        kImport, handle.host_pointer, result_name(result),
        static_cast<int>(result));
  }
  // Host memory is host-visible whatever the caller asked for beside it.
  uint32_t type_index = 0;
  HALO_SDK_RETURN_IF_ERROR(pick_type(
      kImport, needs.requirements.memoryTypeBits & pointer.memoryTypeBits,
      params.memory_type | HALO_MEMORY_TYPE_HOST_VISIBLE, &type_index));
  VkImportMemoryHostPointerInfoEXT import_info = {};
  import_info.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import_info.handleType = host_type;
  import_info.pHostPointer = handle.host_pointer;
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.pNext = &import_info;
  allocate_info.allocationSize = handle.size;
  allocate_info.memoryTypeIndex = type_index;
  HALO_SDK_RETURN_IF_ERROR(
      allocate_memory(kImport, " of handle->host_pointer", allocate_info));
  return place(kImport, device_->adapter->capabilities.min_buffer_alignment,
               needs.requirements.alignment, /*movable=*/false);
}

halo_status_t Buffer::import(Device* device, const halo_buffer_params_t& params,
                             const halo_external_handle_t& handle,
                             halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_buffer_params(
      host, device->adapter->capabilities, params, kImport));
  const ExternalSupport& support = device->adapter->external;
  const bool fd = handle.type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD &&
                  support.memory_fd;
  const bool host_allocation =
      handle.type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION &&
      support.memory_host &&
      device->vkd.vkGetMemoryHostPointerPropertiesEXT != nullptr;
  if (!fd && !host_allocation) {
    return host.make_status(HALO_STATUS_UNIMPLEMENTED,
                            "%s: the device cannot import buffers as %s",
                            kImport, sdk::handle_type_name(handle.type));
  }
  return sdk::guard(host, [&]() -> halo_status_t {
    Buffer* buffer = host.make<Buffer>(device, params);
    halo_status_t status = fd ? buffer->import_fd(params, handle)
                              : buffer->import_host(params, handle);
    if (status != HALO_OK) {
      host.destroy(buffer);
      return status;
    }
    // The import succeeded: the fd it was given is ours, and done with.
    if (fd) close(handle.fd);
    *out_buffer = reinterpret_cast<halo_buffer_t*>(buffer);
    return HALO_OK;
  });
}

}  // namespace halo::vk
