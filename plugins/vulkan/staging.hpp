// Memory a command buffer owns for what it recorded: host-visible staging
// space for update data and the unaligned edges of fills (copied into it at
// record time, then copied to the target on the GPU), and descriptor pools
// for its dispatches. Everything lives until the command buffer dies, so a
// reusable command buffer can be submitted again and again.
#ifndef HALO_VULKAN_STAGING_HPP_
#define HALO_VULKAN_STAGING_HPP_

#include <cstdint>
#include <vector>

#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;

// Where staged bytes went.
struct StagedRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0;
};

class RecordingMemory {
 public:
  explicit RecordingMemory(Device* device) noexcept;
  ~RecordingMemory();
  RecordingMemory(const RecordingMemory&) = delete;
  RecordingMemory& operator=(const RecordingMemory&) = delete;

  // Copies |length| bytes of |data| into staging memory and returns where.
  // Returns the failed Vulkan call's status, or RESOURCE_EXHAUSTED.
  halo_status_t stage(const void* data, uint64_t length,
                      StagedRange* out) noexcept;
  // Destroys every Vulkan object now (the device must still be alive);
  // the destructor does it otherwise.
  void release() noexcept;
  // Makes staged bytes visible to the device (non-coherent memory only).
  halo_status_t flush() noexcept;
  // Allocates a descriptor set of |layout| with |binding_count| storage
  // buffers.
  halo_status_t allocate_set(VkDescriptorSetLayout layout,
                             uint32_t binding_count,
                             VkDescriptorSet* out) noexcept;

 private:
  struct Chunk {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    unsigned char* mapped = nullptr;
    uint64_t size = 0;
    uint64_t used = 0;
  };
  halo_status_t add_chunk(uint64_t minimum);
  halo_status_t add_pool(uint32_t binding_count) noexcept;

  Device* device_;
  std::vector<Chunk, sdk::HostAllocator<Chunk>> chunks_;
  std::vector<VkDescriptorPool, sdk::HostAllocator<VkDescriptorPool>> pools_;
  uint32_t memory_type_ = 0;
  bool coherent_ = true;
  bool have_memory_type_ = false;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_STAGING_HPP_
