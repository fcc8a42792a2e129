// A small SPIR-V reader: just enough reflection for halo's executables.
//
// halo binds a dispatch's buffers as storage buffers 0..k-1 of descriptor
// set 0 and its constants as one push-constant block, so an entry point is
// described by its name, its storage-buffer count and its push-constant
// size, and, for the caller's grid, by its workgroup size. The reader
// checks the module's structure (header, instruction bounds, ids below the
// bound) before any of it reaches the driver, and refuses, with the reason,
// what halo cannot bind: other descriptor sets, gaps in the bindings,
// uniform buffers, images and samplers, arrays of buffers. A hand-written
// reader keeps the plugin free of a reflection library for the handful of
// decorations it needs.
//
// Reflection takes time linear in the module's size: each type's size is
// computed once, and member offsets are indexed by struct once. A push
// constant block may nest structs, arrays, vectors and matrices at most 16
// levels deep and must be smaller than 4 GiB; deeper or larger blocks are
// refused with a message naming the limit.
//
// The workgroup size comes from the constant decorated BuiltIn
// WorkgroupSize where the module has one (it takes precedence), else from
// the entry point's LocalSize or LocalSizeId execution mode. Specialization
// constants count with their defaults, as halo specializes nothing; a size
// that only a specialization constant expression gives is reported as
// {0, 0, 0}, unknown.
//
// Which variables an entry point uses: with one GLCompute entry point,
// every storage buffer the module declares (so a declared but unused
// binding still counts, as GLSL authors expect). With several: the entry
// point's interface list in SPIR-V 1.4 and later (it names every global
// the entry point uses), else the variables its call tree loads, stores,
// indexes or passes on.
#ifndef HALO_VULKAN_SPIRV_READER_HPP_
#define HALO_VULKAN_SPIRV_READER_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct SpirvEntryPoint {
  char name[128] = {};
  uint32_t binding_count = 0;
  uint32_t constant_size = 0;
  // {x, y, z}; {0, 0, 0} when the reader cannot tell (see above).
  uint32_t workgroup_size[3] = {};
};

using SpirvEntryPoints =
    std::vector<SpirvEntryPoint, sdk::HostAllocator<SpirvEntryPoint>>;

// Reads the SPIR-V module in |data| (|size| bytes) and appends its GLCompute
// entry points to |out|. Returns false with the reason in |error| for
// malformed or unsupported modules. Throws std::bad_alloc.
bool reflect_spirv(sdk::Host host, const void* data, size_t size,
                   SpirvEntryPoints* out, ErrorText* error);

}  // namespace halo::vk

#endif  // HALO_VULKAN_SPIRV_READER_HPP_
