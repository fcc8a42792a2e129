// The vulkan command buffer: a VkCommandBuffer from its own command pool,
// recorded as halo's commands arrive, with barriers where commands depend on
// each other (halo/sdk/hazards.hpp) and one first, after the command buffers
// before it in a submission.
//
// fill: vkCmdFillBuffer for the 4-byte-aligned middle (a 1- or 2-byte
// pattern is repeated into the 4-byte word), staging copies for unaligned
// edges. update: the data is copied into staging memory at record time and
// copied to the target on the GPU (no size or alignment limit, unlike
// vkCmdUpdateBuffer). copy: vkCmdCopyBuffer. dispatch: the entry point's
// pipeline, a descriptor set of its bindings as storage buffers and the
// constants as push constants. end adds a barrier that makes the recorded
// writes visible to host reads after the submission completes.
#ifndef HALO_VULKAN_COMMAND_BUFFER_HPP_
#define HALO_VULKAN_COMMAND_BUFFER_HPP_

#include <vector>

#include "halo/command_buffer.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "halo/sdk/hazards.hpp"
#include "staging.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

class Buffer;
struct Device;

class CommandBuffer {
 public:
  halo_object_t header;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_command_buffer_vtable_t kVtable;

  // Creates a command buffer of |mode| on |device| (retained). Returns a new
  // reference in |out_command_buffer|.
  static halo_status_t create(Device* device, halo_command_buffer_mode_t mode,
                              halo_command_buffer_t** out) noexcept;
  // Returns the vulkan command buffer behind |command_buffer|, or NULL.
  static CommandBuffer* from(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_from<CommandBuffer>(command_buffer);
  }
  static CommandBuffer* cast(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_cast<CommandBuffer>(command_buffer);
  }

  Device* device() const noexcept { return device_; }
  VkCommandBuffer vk_command_buffer() const noexcept { return buffer_; }
  halo_object_t* object() noexcept { return &header; }
  halo_status_t acquire_for_submit(size_t index) noexcept;
  void release_unsubmitted() noexcept { recording_.release_unsubmitted(); }

  // The vtable's entries.
  halo_status_t begin() noexcept;
  halo_status_t end() noexcept;
  halo_status_t barrier() noexcept;
  halo_status_t fill(halo_buffer_t* target, uint64_t offset, uint64_t length,
                     const void* pattern, size_t pattern_length) noexcept;
  halo_status_t update(const void* source, halo_buffer_t* target,
                       uint64_t offset, uint64_t length) noexcept;
  halo_status_t copy(halo_buffer_t* source, uint64_t source_offset,
                     halo_buffer_t* target, uint64_t target_offset,
                     uint64_t length) noexcept;
  halo_status_t dispatch(const halo_dispatch_params_t& params) noexcept;

  // Public for the host allocator; use create.
  CommandBuffer(Device* device, halo_command_buffer_mode_t mode) noexcept;
  ~CommandBuffer();

 private:
  halo_status_t start() noexcept;
  // Returns the vulkan buffer of this device behind |handle|, or NULL with
  // INVALID_ARGUMENT in |*status| naming |function| and |argument|.
  Buffer* own_buffer(halo_buffer_t* handle, const char* function,
                     const char* argument, halo_status_t* status) noexcept;
  // Records a barrier first when |accesses| conflict with earlier commands,
  // then remembers them. Throws std::bad_alloc.
  void before(const sdk::BufferAccess* accesses, size_t count);
  void record_barrier(VkPipelineStageFlags destination_stages,
                      VkAccessFlags destination_access) noexcept;
  halo_status_t copy_staged(const void* data, uint64_t length, VkBuffer target,
                            uint64_t offset) noexcept;
  halo_status_t bind_dispatch(const halo_dispatch_params_t& params,
                              const Buffer* const* buffers,
                              const uint64_t* lengths) noexcept;
  // Keeps |object| alive as long as this command buffer. Throws.
  void hold(halo_object_t* object);

  Device* device_;
  sdk::RecordingState recording_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;
  RecordingMemory memory_;
  sdk::HazardTracker hazards_;
  bool wrote_ = false;
  std::vector<halo_object_t*, sdk::HostAllocator<halo_object_t*>> held_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_COMMAND_BUFFER_HPP_
