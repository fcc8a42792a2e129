// The cuda buffer: device memory from cuMemAlloc, or, for host-visible
// memory, pinned host memory that the device reaches through its mapping
// (cuMemHostAlloc with DEVICEMAP): coherent, so a map is the pointer itself
// and flush and invalidate only check their range. An imported host
// allocation is the application's memory registered with CUDA
// (cuMemHostRegister) and reached the same way; an imported OPAQUE_FD is
// another driver's device memory (a Vulkan export) mapped into the device's
// address space (cuImportExternalMemory).
#ifndef HALO_CUDA_BUFFER_HPP_
#define HALO_CUDA_BUFFER_HPP_

#include "cuda_library.hpp"
#include "halo/buffer.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/mapped_ranges.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cuda {

struct Device;

struct Buffer {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The allocating device, retained.
  Device* device;
  sdk::BufferFacts facts;
  // The buffer's first byte as the device addresses it (aligned as asked).
  CUdeviceptr address = 0;
  // The same byte on the host; NULL unless host-visible.
  unsigned char* host_pointer = nullptr;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_buffer_vtable_t kVtable;

  Buffer(Device* device, const sdk::BufferFacts& facts) noexcept;
  ~Buffer();

  // Allocates a buffer on |device| after sdk::check_buffer_params. Returns
  // a new reference in |out_buffer|; RESOURCE_EXHAUSTED when the device is
  // out of memory.
  static halo_status_t create(Device* device,
                              const halo_buffer_params_t& params,
                              halo_buffer_t** out_buffer) noexcept;

  // Makes a buffer of |device| over the memory |handle| (checked by
  // libhalo) names:
  //  - HOST_ALLOCATION: the application's host memory, registered with
  //    CUDA (cuMemHostRegister, counted per range by the device) and
  //    reached through its device mapping, never freed here;
  //  - OPAQUE_FD: device memory another driver exported, imported and
  //    mapped whole; DEVICE_LOCAL only, since CUDA cannot map it for the
  //    host. CUDA owns the fd once the import succeeded.
  // Returns a new reference in |out_buffer|, or the failing CUDA call's
  // status naming halo_buffer_import.
  static halo_status_t import(Device* device, const halo_buffer_params_t& params,
                              const halo_external_handle_t& handle,
                              halo_buffer_t** out_buffer) noexcept;

  // Returns the buffer when |buffer| is a cuda buffer, else NULL.
  static Buffer* from(halo_buffer_t* buffer) noexcept {
    return sdk::object_from<Buffer>(buffer);
  }
  static Buffer* cast(halo_buffer_t* buffer) noexcept {
    return sdk::object_cast<Buffer>(buffer);
  }
  halo_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_buffer_t*>(this);
  }

  halo_status_t map(uint64_t offset, uint64_t length, void** out) noexcept;
  halo_status_t unmap(uint64_t offset, uint64_t length) noexcept;

 private:
  halo_status_t allocate(uint64_t alignment) noexcept;
  halo_status_t import_host(const halo_external_handle_t& handle) noexcept;
  halo_status_t import_fd(const halo_external_handle_t& handle) noexcept;

  // What the driver allocated (the aligned pointers lie inside it).
  CUdeviceptr device_allocation_ = 0;
  void* host_allocation_ = nullptr;
  // An imported host allocation's first byte, registered with the device.
  void* registered_ = nullptr;
  // An imported OPAQUE_FD's memory; device_allocation_ is its mapping.
  CUexternalMemory external_memory_ = nullptr;
  // Open mappings, so that an unmap of a range never mapped is refused.
  sdk::MappedRanges mappings_;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_BUFFER_HPP_
