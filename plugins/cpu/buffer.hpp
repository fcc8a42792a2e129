// The cpu buffer: aligned host memory from the host allocator, or the
// application's host memory it imported (HOST_ALLOCATION). Every memory
// type is offered, since host memory is at once the device's local memory,
// visible to and coherent with the host, and cached.
#ifndef HALO_CPU_BUFFER_HPP_
#define HALO_CPU_BUFFER_HPP_

#include <cstdint>

#include "halo/buffer.h"
#include "halo/device.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/mapped_ranges.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cpu {

// The memory types a cpu device offers.
inline constexpr halo_memory_type_t kMemoryTypes =
    HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE |
    HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED;

// Every buffer's memory starts at a multiple of this (a cache line, and the
// device's min_buffer_alignment for dispatch bindings).
inline constexpr uint64_t kMinBufferAlignment = 64;

// Larger alignments are refused with RESOURCE_EXHAUSTED rather than passed
// to an allocator that might abort on them.
inline constexpr uint64_t kMaxBufferAlignment = uint64_t{1} << 30;

// A buffer object; the header comes first so handle and object share an
// address.
struct Buffer {
  halo_object_t header;
  sdk::Host host;
  // The device, retained so that it outlives its buffers.
  halo_device_t* device;
  sdk::BufferFacts facts;
  // The memory (size facts.size, or allocation_size), from the host
  // allocator, or borrowed from the application when imported.
  uint8_t* data;
  // Bytes at |data|: facts.size, rounded up to whole pages when EXPORTABLE.
  uint64_t allocation_size;
  // False for imported memory, which the application frees.
  bool owns_data;
  // Allocated with HALO_BUFFER_FLAG_EXPORTABLE.
  bool exportable;
  // Host memory needs no mapping; the ranges the caller mapped are kept
  // only to refuse an unmap of one never mapped.
  sdk::MappedRanges mappings;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_buffer_vtable_t kVtable;

  Buffer(sdk::Host host, halo_device_t* device, const sdk::BufferFacts& facts,
         uint8_t* data, uint64_t allocation_size, bool owns_data,
         bool exportable) noexcept;
  ~Buffer();

  // Allocates a buffer of |device| (borrowed; retained) as |params| asks,
  // after sdk::check_buffer_params against |caps|. Returns a new reference
  // in |out_buffer|; INVALID_ARGUMENT for bad parameters, RESOURCE_EXHAUSTED
  // when the size exceeds max_buffer_size or memory runs out. Thread-safe.
  static halo_status_t allocate(sdk::Host host, halo_device_t* device,
                                const halo_device_capabilities_t& caps,
                                const halo_buffer_params_t& params,
                                halo_buffer_t** out_buffer) noexcept;

  // Makes a buffer of |device| (borrowed; retained) over the application's
  // memory that |handle| names (a HOST_ALLOCATION libhalo has checked), as
  // |params| describes it. The memory is borrowed, never freed here.
  // Returns a new reference in |out_buffer|; INVALID_ARGUMENT for bad
  // parameters. Thread-safe.
  static halo_status_t import(sdk::Host host, halo_device_t* device,
                              const halo_device_capabilities_t& caps,
                              const halo_buffer_params_t& params,
                              const halo_external_handle_t& handle,
                              halo_buffer_t** out_buffer) noexcept;

  // Returns the cpu buffer behind |buffer| in |*out| when it belongs to the
  // cpu plugin and to |device|; else INVALID_ARGUMENT naming |function| and
  // |argument|. Borrows everything.
  static halo_status_t resolve(sdk::Host host, halo_buffer_t* buffer,
                               halo_device_t* device, const char* function,
                               const char* argument, Buffer** out) noexcept;

  // Returns the cpu buffer behind |buffer|, or NULL for another plugin's.
  static Buffer* from(halo_buffer_t* buffer) noexcept {
    return sdk::object_from<Buffer>(buffer);
  }
  static Buffer* cast(halo_buffer_t* buffer) noexcept {
    return sdk::object_cast<Buffer>(buffer);
  }
  halo_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_buffer_t*>(this);
  }
};

}  // namespace halo::cpu

#endif  // HALO_CPU_BUFFER_HPP_
