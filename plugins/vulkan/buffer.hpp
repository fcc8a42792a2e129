// The vulkan buffer: a VkBuffer bound to its own VkDeviceMemory of the
// requested memory type, persistently mapped when host-visible.
#ifndef HALO_VULKAN_BUFFER_HPP_
#define HALO_VULKAN_BUFFER_HPP_

#include "halo/buffer.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/mapped_ranges.hpp"
#include "halo/sdk/object_cast.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;

class Buffer {
 public:
  halo_object_t header;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_buffer_vtable_t kVtable;

  // Allocates a buffer on |device| (retained) after the shared argument
  // checks. Returns a new reference in |out_buffer|; INVALID_ARGUMENT when
  // no memory type has every requested property, RESOURCE_EXHAUSTED when
  // memory runs out, or the failed Vulkan call's status.
  static halo_status_t create(Device* device, const halo_buffer_params_t& params,
                              halo_buffer_t** out_buffer) noexcept;

  // Returns the vulkan buffer behind |buffer|, or NULL for any other
  // plugin's buffer.
  static Buffer* from(halo_buffer_t* buffer) noexcept {
    return sdk::object_from<Buffer>(buffer);
  }
  static Buffer* cast(halo_buffer_t* buffer) noexcept {
    return sdk::object_cast<Buffer>(buffer);
  }

  const sdk::BufferFacts& facts() const noexcept { return facts_; }
  VkBuffer vk_buffer() const noexcept { return buffer_; }
  Device* device() const noexcept { return device_; }
  halo_object_t* object() noexcept { return &header; }

  // The vtable's entries.
  halo_status_t map_range(uint64_t offset, uint64_t length,
                          void** out_pointer) noexcept;
  halo_status_t unmap_range(uint64_t offset, uint64_t length) noexcept;
  halo_status_t sync_range(const char* function, bool flush, uint64_t offset,
                           uint64_t length) noexcept;

  // Public for the host allocator; use create.
  Buffer(Device* device, const halo_buffer_params_t& params) noexcept;
  ~Buffer();

 private:
  halo_status_t allocate(const halo_buffer_params_t& params) noexcept;
  halo_status_t map_aligned(uint64_t alignment,
                            uint64_t required_alignment) noexcept;
  halo_status_t check_mapped(const char* function, uint64_t offset,
                             uint64_t* length) noexcept;

  Device* device_;
  sdk::BufferFacts facts_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t allocation_size_ = 0;
  // Where the buffer starts in its memory (non-zero only to honour a
  // mapping alignment larger than the device's own).
  uint64_t memory_offset_ = 0;
  unsigned char* mapped_ = nullptr;
  bool coherent_ = true;
  // The memory stays mapped for the buffer's life; the ranges the caller
  // mapped are kept only to refuse an unmap of one never mapped.
  sdk::MappedRanges mappings_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_BUFFER_HPP_
