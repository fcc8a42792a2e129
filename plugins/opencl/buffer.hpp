// The opencl buffer: a cl_mem of the device's context. Host-visible memory
// is CL_MEM_ALLOC_HOST_PTR memory, mapped with clEnqueueMapBuffer on the
// device's private in-order queue (a map blocks until the memory is there).
// An imported host allocation (buffer_import.cpp) is a CL_MEM_USE_HOST_PTR
// cl_mem over the application's memory, imported device memory a cl_mem of
// cl_khr_external_memory, and each an ordinary buffer otherwise.
#ifndef HALO_OPENCL_BUFFER_HPP_
#define HALO_OPENCL_BUFFER_HPP_

#include <cstdint>
#include <mutex>
#include <vector>

#include "cl_library.hpp"
#include "halo/buffer.h"
#include "halo/external_handle.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/hazards.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/mapped_ranges.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cl {

struct Device;

struct Buffer {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The allocating device, retained.
  Device* device;
  cl_mem memory = nullptr;
  sdk::BufferFacts facts;
  // An imported host allocation's first byte (the application's); NULL for
  // an allocated buffer.
  const void* imported_memory = nullptr;
  // Imported device memory of another API (OPAQUE_FD): submissions acquire
  // and release it (cl_khr_external_memory).
  bool external = false;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_buffer_vtable_t kVtable;

  Buffer(Device* device, const sdk::BufferFacts& facts) noexcept;
  ~Buffer();

  // Allocates a buffer on |device| after sdk::check_buffer_params. Returns
  // a new reference in |out_buffer|; RESOURCE_EXHAUSTED when the device is
  // out of memory.
  static halo_status_t create(Device* device, const halo_buffer_params_t& params,
                              halo_buffer_t** out_buffer) noexcept;

  // Makes a buffer of |device| over the memory that |handle| names, after
  // sdk::check_buffer_params; libhalo has checked the handle (a
  // HOST_ALLOCATION aligned to the device's host_allocation_alignment, or
  // an OPAQUE_FD; at least |params.size| bytes) and that the device imports
  // its type. Host memory stays the application's: the buffer never frees
  // it. Returns a
  // new reference in |out_buffer|, or the failing OpenCL call's status
  // naming halo_buffer_import.
  static halo_status_t import(Device* device, const halo_buffer_params_t& params,
                              const halo_external_handle_t& handle,
                              halo_buffer_t** out_buffer) noexcept;

  // import() of an OPAQUE_FD: DEVICE_LOCAL memory only; the fd is
  // OpenCL's once this succeeds.
  static halo_status_t import_device_memory(Device* device,
                                            const halo_buffer_params_t& params,
                                            const halo_external_handle_t& handle,
                                            halo_buffer_t** out_buffer) noexcept;

  // Wraps |memory| (ownership passes, released on failure too) in a new
  // buffer of |device| with |facts|; a new reference in |out_buffer|.
  // Returns RESOURCE_EXHAUSTED when the host allocator fails.
  static halo_status_t adopt(Device* device, const sdk::BufferFacts& facts,
                             cl_mem memory, halo_buffer_t** out_buffer) noexcept;

  // Returns the buffer when |buffer| is an opencl buffer, else NULL.
  static Buffer* from(halo_buffer_t* buffer) noexcept {
    return sdk::object_from<Buffer>(buffer);
  }
  static Buffer* cast(halo_buffer_t* buffer) noexcept {
    return sdk::object_cast<Buffer>(buffer);
  }
  halo_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_buffer_t*>(this);
  }

  // How a command's use of [offset, offset + length) meets the hazard
  // tracker. Several imports may name one memory, so a host allocation's
  // use is keyed by its bytes' addresses (sdk::host_memory_access), and
  // imported device memory, whose bytes two imports cannot compare, meets
  // every other such use (sdk::shared_memory_access); an allocated
  // buffer's use by the buffer and the offset.
  sdk::BufferAccess access(uint64_t offset, uint64_t length,
                           bool write) const noexcept {
    if (external) return sdk::shared_memory_access(write);
    if (imported_memory == nullptr) return {this, offset, length, write};
    return sdk::host_memory_access(
        static_cast<const char*>(imported_memory) + offset, length, write);
  }

  halo_status_t map(uint64_t offset, uint64_t length, void** out) noexcept;
  halo_status_t unmap(uint64_t offset, uint64_t length) noexcept;

  // Stores in |*out| a sub-buffer of [offset, offset + length), borrowed:
  // made once per region and kept for the buffer's life, so that the buffer
  // releases its sub-buffers in the one order NVIDIA's driver (580) survives
  // (see ~Buffer). Thread-safe. Returns the OpenCL failure or
  // RESOURCE_EXHAUSTED.
  halo_status_t region(uint64_t offset, uint64_t length, cl_mem* out) noexcept;

 private:
  halo_status_t unmap_pointer(void* pointer) noexcept;

  // Live mappings, so that unmap_range finds the pointer OpenCL gave.
  sdk::MappedRanges mappings_;
  struct Region {
    uint64_t offset;
    uint64_t length;
    cl_mem memory;
  };
  std::mutex regions_mutex_;
  std::vector<Region, sdk::HostAllocator<Region>> regions_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_BUFFER_HPP_
