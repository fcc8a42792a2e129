// Vulkan command buffers: recording halo's commands.
#include "command_buffer.hpp"

#include <algorithm>
#include <cstring>

#include "buffer.hpp"
#include "device.hpp"
#include "executable.hpp"
#include "halo/sdk/device_limits.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkAccessFlags kWorkAccess =
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
constexpr VkAccessFlags kWorkWrites =
    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;

void destroy_command_buffer(halo_object_t* object) {
  CommandBuffer* command_buffer = sdk::object_cast<CommandBuffer>(object);
  sdk::Host host = command_buffer->device()->host;
  host.destroy(command_buffer);
}

halo_status_t begin(halo_command_buffer_t* command_buffer) {
  return CommandBuffer::cast(command_buffer)->begin();
}
halo_status_t end(halo_command_buffer_t* command_buffer) {
  return CommandBuffer::cast(command_buffer)->end();
}
halo_status_t barrier(halo_command_buffer_t* command_buffer) {
  return CommandBuffer::cast(command_buffer)->barrier();
}
halo_status_t fill(halo_command_buffer_t* command_buffer, halo_buffer_t* target,
                   uint64_t offset, uint64_t length, const void* pattern,
                   size_t pattern_length) {
  return CommandBuffer::cast(command_buffer)
      ->fill(target, offset, length, pattern, pattern_length);
}
halo_status_t update(halo_command_buffer_t* command_buffer, const void* source,
                     halo_buffer_t* target, uint64_t offset, uint64_t length) {
  return CommandBuffer::cast(command_buffer)
      ->update(source, target, offset, length);
}
halo_status_t copy(halo_command_buffer_t* command_buffer, halo_buffer_t* source,
                   uint64_t source_offset, halo_buffer_t* target,
                   uint64_t target_offset, uint64_t length) {
  return CommandBuffer::cast(command_buffer)
      ->copy(source, source_offset, target, target_offset, length);
}
halo_status_t dispatch(halo_command_buffer_t* command_buffer,
                       const halo_dispatch_params_t* params) {
  return CommandBuffer::cast(command_buffer)->dispatch(*params);
}

}  // namespace

// The entries are named vk:: because CommandBuffer's members of the same
// names would hide them here.
const halo_command_buffer_vtable_t CommandBuffer::kVtable = {
    .object = {.struct_size = sizeof(halo_command_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_COMMAND_BUFFER,
               .destroy = &destroy_command_buffer},
    .begin = &vk::begin,
    .end = &vk::end,
    .barrier = &vk::barrier,
    .fill = &vk::fill,
    .update = &vk::update,
    .copy = &vk::copy,
    .dispatch = &vk::dispatch,
};

CommandBuffer::CommandBuffer(Device* device,
                             halo_command_buffer_mode_t mode) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      device_(device),
      recording_(mode),
      memory_(device),
      hazards_(device->host),
      held_(sdk::HostAllocator<halo_object_t*>(device->host)) {
  device->retain();
}

CommandBuffer::~CommandBuffer() {
  // Freeing the pool frees its command buffer.
  if (pool_ != VK_NULL_HANDLE) {
    device_->vkd.vkDestroyCommandPool(device_->device, pool_, nullptr);
  }
  for (halo_object_t* object : held_) device_->host.release(object);
  // The staging memory needs the device: free it before letting go.
  memory_.release();
  device_->release();
}

halo_status_t CommandBuffer::start() noexcept {
  sdk::Host host = device_->host;
  const DeviceFunctions& vkd = device_->vkd;
  VkCommandPoolCreateInfo pool_info = {};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = device_->adapter->queue_family;
  if (recording_.mode() == HALO_COMMAND_BUFFER_MODE_ONE_SHOT) {
    pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  }
  HALO_VK_RETURN_IF_FAILED(
      host, "vkCreateCommandPool",
      vkd.vkCreateCommandPool(device_->device, &pool_info, nullptr, &pool_));
  VkCommandBufferAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = pool_;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  HALO_VK_RETURN_IF_FAILED(
      host, "vkAllocateCommandBuffers",
      vkd.vkAllocateCommandBuffers(device_->device, &allocate_info, &buffer_));
  return HALO_OK;
}

halo_status_t CommandBuffer::create(Device* device,
                                    halo_command_buffer_mode_t mode,
                                    halo_command_buffer_t** out) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_command_buffer_mode(host, mode));
  return sdk::guard(host, [&]() -> halo_status_t {
    CommandBuffer* command_buffer = host.make<CommandBuffer>(device, mode);
    halo_status_t status = command_buffer->start();
    if (status != HALO_OK) {
      host.destroy(command_buffer);
      return status;
    }
    *out = reinterpret_cast<halo_command_buffer_t*>(command_buffer);
    return HALO_OK;
  });
}

halo_status_t CommandBuffer::acquire_for_submit(size_t index) noexcept {
  return recording_.acquire_for_submit(device_->host, index);
}

void CommandBuffer::hold(halo_object_t* object) {
  held_.push_back(object);
  device_->host.retain(object);
}

Buffer* CommandBuffer::own_buffer(halo_buffer_t* handle, const char* function,
                                  const char* argument,
                                  halo_status_t* status) noexcept {
  Buffer* buffer = Buffer::from(handle);
  if (buffer != nullptr && buffer->device() == device_) return buffer;
  *status = device_->host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                      "%s: %s is not a buffer of this device",
                                      function, argument);
  return nullptr;
}

void CommandBuffer::record_barrier(VkPipelineStageFlags destination_stages,
                                   VkAccessFlags destination_access) noexcept {
  VkMemoryBarrier barrier = {};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = kWorkWrites;
  barrier.dstAccessMask = destination_access;
  device_->vkd.vkCmdPipelineBarrier(buffer_, kWorkStages, destination_stages,
                                    0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void CommandBuffer::before(const sdk::BufferAccess* accesses, size_t count) {
  if (hazards_.conflicts(accesses, count)) {
    record_barrier(kWorkStages, kWorkAccess);
    hazards_.clear();
  }
  hazards_.add(accesses, count);
  for (size_t i = 0; i < count; ++i) wrote_ = wrote_ || accesses[i].write;
}

halo_status_t CommandBuffer::begin() noexcept {
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(recording_.begin(host));
  VkCommandBufferBeginInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  // A reusable command buffer may be submitted again while it still runs.
  info.flags = recording_.mode() == HALO_COMMAND_BUFFER_MODE_ONE_SHOT
                   ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT
                   : VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  HALO_VK_RETURN_IF_FAILED(host, "vkBeginCommandBuffer",
                           device_->vkd.vkBeginCommandBuffer(buffer_, &info));
  // The command buffers of one submission take effect in list order; within
  // one vkQueueSubmit only a barrier orders a command buffer after the one
  // before it.
  record_barrier(kWorkStages, kWorkAccess);
  return HALO_OK;
}

halo_status_t CommandBuffer::end() noexcept {
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(
      recording_.check_recording(host, "halo_command_buffer_end"));
  // The host reads results after waiting on the submission's semaphore: the
  // writes must be made visible to it.
  if (wrote_) {
    record_barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  HALO_SDK_RETURN_IF_ERROR(memory_.flush());
  HALO_VK_RETURN_IF_FAILED(host, "vkEndCommandBuffer",
                           device_->vkd.vkEndCommandBuffer(buffer_));
  return recording_.end(host);
}

halo_status_t CommandBuffer::barrier() noexcept {
  HALO_SDK_RETURN_IF_ERROR(recording_.check_recording(
      device_->host, "halo_command_buffer_barrier"));
  if (!hazards_.empty()) {
    record_barrier(kWorkStages, kWorkAccess);
    hazards_.clear();
  }
  return HALO_OK;
}

halo_status_t CommandBuffer::copy_staged(const void* data, uint64_t length,
                                         VkBuffer target,
                                         uint64_t offset) noexcept {
  if (length == 0) return HALO_OK;
  StagedRange staged;
  HALO_SDK_RETURN_IF_ERROR(memory_.stage(data, length, &staged));
  VkBufferCopy region = {staged.offset, offset, length};
  device_->vkd.vkCmdCopyBuffer(buffer_, staged.buffer, target, 1, &region);
  return HALO_OK;
}

halo_status_t CommandBuffer::fill(halo_buffer_t* target, uint64_t offset,
                                  uint64_t length, const void* pattern,
                                  size_t pattern_length) noexcept {
  static const char kFunction[] = "halo_command_buffer_fill";
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(recording_.check_recording(host, kFunction));
  halo_status_t status = HALO_OK;
  Buffer* buffer = own_buffer(target, kFunction, "target", &status);
  if (buffer == nullptr) return status;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_fill(host, buffer->facts(), offset, &length, pattern_length));
  if (length == 0) return HALO_OK;
  return sdk::guard(host, [&]() -> halo_status_t {
    // offset is a multiple of the pattern length, so the byte at absolute
    // position p is pattern[p % pattern_length] and every aligned word holds
    // the same four bytes.
    unsigned char bytes[8];
    for (size_t i = 0; i < sizeof(bytes); ++i) {
      bytes[i] = static_cast<const unsigned char*>(pattern)[i % pattern_length];
    }
    uint32_t word = 0;
    std::memcpy(&word, bytes, sizeof(word));
    const uint64_t end = offset + length;
    const uint64_t middle_begin = std::min(end, (offset + 3) & ~uint64_t{3});
    const uint64_t middle_end = std::max(middle_begin, end & ~uint64_t{3});
    const sdk::BufferAccess access = buffer->access(offset, length, true);
    before(&access, 1);
    hold(buffer->object());
    if (middle_end > middle_begin) {
      device_->vkd.vkCmdFillBuffer(buffer_, buffer->vk_buffer(), middle_begin,
                                   middle_end - middle_begin, word);
    }
    // The unaligned edges (at most 3 bytes each) come from staging; both
    // start at a multiple of the pattern length, like |bytes|.
    HALO_SDK_RETURN_IF_ERROR(copy_staged(bytes, middle_begin - offset,
                                         buffer->vk_buffer(), offset));
    return copy_staged(bytes + (middle_end % 4), end - middle_end,
                       buffer->vk_buffer(), middle_end);
  });
}

halo_status_t CommandBuffer::update(const void* source, halo_buffer_t* target,
                                    uint64_t offset, uint64_t length) noexcept {
  static const char kFunction[] = "halo_command_buffer_update";
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(recording_.check_recording(host, kFunction));
  halo_status_t status = HALO_OK;
  Buffer* buffer = own_buffer(target, kFunction, "target", &status);
  if (buffer == nullptr) return status;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_update(host, buffer->facts(), offset, length));
  if (length == 0) return HALO_OK;
  return sdk::guard(host, [&]() -> halo_status_t {
    const sdk::BufferAccess access = buffer->access(offset, length, true);
    before(&access, 1);
    hold(buffer->object());
    return copy_staged(source, length, buffer->vk_buffer(), offset);
  });
}

halo_status_t CommandBuffer::copy(halo_buffer_t* source, uint64_t source_offset,
                                  halo_buffer_t* target, uint64_t target_offset,
                                  uint64_t length) noexcept {
  static const char kFunction[] = "halo_command_buffer_copy";
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(recording_.check_recording(host, kFunction));
  halo_status_t status = HALO_OK;
  Buffer* from = own_buffer(source, kFunction, "source", &status);
  if (from == nullptr) return status;
  Buffer* to = own_buffer(target, kFunction, "target", &status);
  if (to == nullptr) return status;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_copy(host, from->facts(), source_offset,
                                           to->facts(), target_offset, length,
                                           from == to));
  if (length == 0) return HALO_OK;
  return sdk::guard(host, [&]() -> halo_status_t {
    const sdk::BufferAccess accesses[2] = {
        from->access(source_offset, length, false),
        to->access(target_offset, length, true)};
    HALO_SDK_RETURN_IF_ERROR(
        sdk::check_copy_aliases(host, accesses[0], accesses[1]));
    before(accesses, 2);
    hold(from->object());
    hold(to->object());
    VkBufferCopy region = {source_offset, target_offset, length};
    device_->vkd.vkCmdCopyBuffer(buffer_, from->vk_buffer(), to->vk_buffer(),
                                 1, &region);
    return HALO_OK;
  });
}

halo_status_t CommandBuffer::dispatch(
    const halo_dispatch_params_t& params) noexcept {
  static const char kFunction[] = "halo_command_buffer_dispatch";
  sdk::Host host = device_->host;
  HALO_SDK_RETURN_IF_ERROR(recording_.check_recording(host, kFunction));
  Executable* executable = Executable::from(params.executable);
  if (executable == nullptr || executable->device() != device_) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->executable is not an executable of "
                            "this device",
                            kFunction);
  }
  halo_entry_point_info_t info = {};
  if (params.entry_point < executable->entry_point_count()) {
    info = executable->info(params.entry_point);
  }
  HALO_SDK_RETURN_IF_ERROR(sdk::check_dispatch(
      host, params, info, executable->entry_point_count()));
  const Buffer* buffers[kMaxBindings] = {};
  uint64_t lengths[kMaxBindings] = {};
  char argument[48];
  for (size_t i = 0; i < params.binding_count; ++i) {
    std::snprintf(argument, sizeof(argument), "params->bindings[%zu]", i);
    halo_status_t status = HALO_OK;
    Buffer* buffer =
        own_buffer(params.bindings[i].buffer, kFunction, argument, &status);
    if (buffer == nullptr) return status;
    lengths[i] = params.bindings[i].length;
    HALO_SDK_RETURN_IF_ERROR(sdk::check_binding(
        host, i, buffer->facts(), params.bindings[i].offset, &lengths[i],
        device_->adapter->capabilities.min_buffer_alignment));
    buffers[i] = buffer;
  }
  HALO_SDK_RETURN_IF_ERROR(sdk::check_workgroup_count(
      host, params, device_->adapter->capabilities));
  return sdk::guard(host, [&] { return bind_dispatch(params, buffers, lengths); });
}

halo_status_t CommandBuffer::bind_dispatch(const halo_dispatch_params_t& params,
                                           const Buffer* const* buffers,
                                           const uint64_t* lengths) noexcept {
  Executable* executable = Executable::cast(params.executable);
  const Executable::EntryPoint& entry =
      executable->entry_point(params.entry_point);
  const uint32_t count = static_cast<uint32_t>(params.binding_count);
  VkDescriptorSet set = VK_NULL_HANDLE;
  HALO_SDK_RETURN_IF_ERROR(memory_.allocate_set(entry.set_layout, count, &set));
  VkDescriptorBufferInfo infos[kMaxBindings] = {};
  VkWriteDescriptorSet writes[kMaxBindings] = {};
  sdk::BufferAccess accesses[kMaxBindings] = {};
  for (uint32_t i = 0; i < count; ++i) {
    infos[i] = {buffers[i]->vk_buffer(), params.bindings[i].offset, lengths[i]};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
    // The plugin cannot tell what a shader reads or writes: each binding
    // counts as written.
    accesses[i] =
        buffers[i]->access(params.bindings[i].offset, lengths[i], true);
  }
  const DeviceFunctions& vkd = device_->vkd;
  vkd.vkUpdateDescriptorSets(device_->device, count, writes, 0, nullptr);
  before(accesses, count);
  hold(executable->object());
  for (uint32_t i = 0; i < count; ++i) {
    hold(const_cast<Buffer*>(buffers[i])->object());
  }
  vkd.vkCmdBindPipeline(buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, entry.pipeline);
  vkd.vkCmdBindDescriptorSets(buffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                              entry.layout, 0, 1, &set, 0, nullptr);
  if (params.constant_size != 0) {
    // Push constant ranges are whole words; pad the last one.
    unsigned char constants[kMaxConstantBytes] = {};
    uint32_t size = (params.constant_size + 3u) & ~3u;
    std::memcpy(constants, params.constants, params.constant_size);
    vkd.vkCmdPushConstants(buffer_, entry.layout, VK_SHADER_STAGE_COMPUTE_BIT,
                           0, size, constants);
  }
  vkd.vkCmdDispatch(buffer_, params.workgroup_count[0],
                    params.workgroup_count[1], params.workgroup_count[2]);
  return HALO_OK;
}

}  // namespace halo::vk
