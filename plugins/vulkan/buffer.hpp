// The vulkan buffer: a VkBuffer bound to its own VkDeviceMemory of the
// requested memory type, persistently mapped when host-visible. The memory
// may be exportable as an opaque fd, or imported from one or from a host
// allocation (buffer_external.cpp).
#ifndef HALO_VULKAN_BUFFER_HPP_
#define HALO_VULKAN_BUFFER_HPP_

#include "halo/buffer.h"
#include "halo/external_handle.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/hazards.hpp"
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

  // Makes a buffer of |device| (retained) over the memory |handle| names
  // (halo_buffer_import; libhalo has checked the arguments and that the
  // device imports that type). Returns a new reference in |out_buffer|;
  // INVALID_ARGUMENT when no memory type fits or the memory is too small,
  // or the failed Vulkan call's status. The fd of |handle| is closed only
  // on success (external.h).
  static halo_status_t import(Device* device, const halo_buffer_params_t& params,
                              const halo_external_handle_t& handle,
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
  halo_status_t export_handle(halo_external_handle_type_t type,
                              halo_external_handle_t* out_handle) noexcept;

  // How a command's use of [offset, offset + length) meets the hazard
  // tracker: by the buffer, unless other buffers may share the memory
  // (external.h, "Aliases"): an imported host allocation by its addresses,
  // exportable or fd-imported memory as one range shared with every other.
  sdk::BufferAccess access(uint64_t offset, uint64_t length,
                           bool write) const noexcept;

  // Public for the host allocator; use create.
  Buffer(Device* device, const halo_buffer_params_t& params) noexcept;
  ~Buffer();

 private:
  // What a VkBuffer needs of its memory.
  struct Needs {
    VkMemoryRequirements requirements = {};
    // A dedicated allocation: the driver requires one for this buffer, or
    // for every buffer of its external memory type.
    bool dedicated = false;
  };

  halo_status_t allocate(const halo_buffer_params_t& params) noexcept;
  // Creates buffer_ of |size| bytes, as external memory of |external|
  // (0 for none), and reads what it needs into |*needs|.
  halo_status_t create_vk_buffer(uint64_t size,
                                 VkExternalMemoryHandleTypeFlags external,
                                 Needs* needs) noexcept;
  // Picks the memory type of |type_bits| for |wanted|; INVALID_ARGUMENT
  // naming |function| when none has every property.
  halo_status_t pick_type(const char* function, uint32_t type_bits,
                          halo_memory_type_t wanted,
                          uint32_t* out_index) noexcept;
  // vkAllocateMemory of |info| into memory_, recording its size and
  // properties. A failure names |function| and the memory's |source|
  // (" of handle->fd", or "").
  halo_status_t allocate_memory(const char* function, const char* source,
                                const VkMemoryAllocateInfo& info) noexcept;
  // Maps host-visible memory and binds buffer_: at a mapped address aligned
  // to |alignment|, moved into the memory where it may (|movable|; shared
  // memory starts where the other side's does).
  halo_status_t place(const char* function, uint64_t alignment,
                      uint64_t required_alignment, bool movable) noexcept;
  halo_status_t map_aligned(const char* function, uint64_t alignment,
                            uint64_t required_alignment) noexcept;
  // create_vk_buffer for an import of |handle| as external memory of
  // |type|: INVALID_ARGUMENT when the buffer needs more than handle.size.
  halo_status_t create_import_buffer(const halo_buffer_params_t& params,
                                     const halo_external_handle_t& handle,
                                     VkExternalMemoryHandleTypeFlagBits type,
                                     Needs* needs) noexcept;
  halo_status_t import_fd(const halo_buffer_params_t& params,
                          const halo_external_handle_t& handle) noexcept;
  halo_status_t import_host(const halo_buffer_params_t& params,
                            const halo_external_handle_t& handle) noexcept;
  halo_status_t check_mapped(const char* function, uint64_t offset,
                             uint64_t* length) noexcept;

  Device* device_;
  sdk::BufferFacts facts_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t allocation_size_ = 0;
  // The memory is a dedicated allocation (Needs::dedicated), which an
  // export says (HALO_EXTERNAL_HANDLE_FLAG_DEDICATED).
  bool dedicated_ = false;
  // Where the buffer starts in its memory (non-zero only to honour a
  // mapping alignment larger than the device's own).
  uint64_t memory_offset_ = 0;
  unsigned char* mapped_ = nullptr;
  bool coherent_ = true;
  bool host_visible_ = false;
  // Allocated with HALO_BUFFER_FLAG_EXPORTABLE: the memory exports as an
  // opaque fd.
  bool exportable_ = false;
  // An imported HOST_ALLOCATION: the caller's memory, which mapped_ names.
  void* host_pointer_ = nullptr;
  // Imported from an opaque fd: other buffers, here or on another device,
  // may name the memory.
  bool fd_imported_ = false;
  // The memory stays mapped for the buffer's life; the ranges the caller
  // mapped are kept only to refuse an unmap of one never mapped.
  sdk::MappedRanges mappings_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_BUFFER_HPP_
