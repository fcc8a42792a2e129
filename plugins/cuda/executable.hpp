// The cuda executable: a PTX module loaded (JIT-compiled for the device at
// hand) with cuModuleLoadDataEx, whose .entry functions are the entry
// points.
//
// Entry point layout (shared with every plugin, see cts/testdata/README.md):
// pointer parameters come first and are the bindings, in order; scalar
// parameters (32 or 64 bits) follow and are the constants, each at the next
// offset aligned to its own size. ptx_reflection.hpp says how pointers are
// told from 64-bit scalars. Each entry point must declare its block size
// (.reqntid, or .maxntid as `__launch_bounds__(N)` writes it): that is the
// workgroup size every launch uses and halo_entry_point_info_t reports.
#ifndef HALO_CUDA_EXECUTABLE_HPP_
#define HALO_CUDA_EXECUTABLE_HPP_

#include <cstdint>

#include "cuda_library.hpp"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cuda {

struct Device;

// Most parameters (bindings plus constants) an entry point may take.
inline constexpr uint32_t kMaxKernelParameters = 64;

struct EntryPoint {
  halo_entry_point_info_t info = {};
  CUfunction function = nullptr;
  // Scalar parameter j is parameter info.binding_count + j, read from the
  // constants at constant_offsets[j], constant_sizes[j] bytes long.
  uint32_t constant_count = 0;
  uint32_t constant_offsets[kMaxKernelParameters] = {};
  uint8_t constant_sizes[kMaxKernelParameters] = {};
};

struct Executable {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The creating device, retained.
  Device* device;
  CUmodule module = nullptr;
  // Sorted by name, so ordinals do not depend on the PTX's order.
  EntryPoint* entry_points = nullptr;
  uint32_t entry_point_count = 0;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_executable_vtable_t kVtable;

  explicit Executable(Device* device) noexcept;
  ~Executable();

  // Loads |params| (format "ptx") on |device|. Returns a new reference in
  // |out_executable|; INVALID_ARGUMENT for another format, empty or
  // malformed PTX, PTX the driver cannot compile (with its log), or an entry
  // point that breaks the layout above.
  static halo_status_t create(Device* device,
                              const halo_executable_params_t& params,
                              halo_executable_t** out_executable) noexcept;

  // Returns the executable when |executable| is a cuda executable, else
  // NULL.
  static Executable* from(halo_executable_t* executable) noexcept {
    return sdk::object_from<Executable>(executable);
  }
  static Executable* cast(halo_executable_t* executable) noexcept {
    return sdk::object_cast<Executable>(executable);
  }
  halo_executable_t* handle() noexcept {
    return reinterpret_cast<halo_executable_t*>(this);
  }

 private:
  halo_status_t load(const halo_executable_params_t& params);
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_EXECUTABLE_HPP_
