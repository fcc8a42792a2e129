// The opencl executable: an OpenCL C (or SPIR-V IL) program built once for
// the device, whose kernels are the entry points.
//
// Entry point layout (shared with every plugin, see halo/cpu_kernel.h): the
// kernel's __global pointer parameters come first and are the bindings, in
// order; its scalar parameters follow and are the constants, each at the
// next offset aligned to its own size (4 or 8 bytes). The workgroup size is
// the kernel's reqd_work_group_size, which every entry point must declare
// and halo_entry_point_info_t::workgroup_size reports; a dispatch's global
// size is workgroup_count times that size.
#ifndef HALO_OPENCL_EXECUTABLE_HPP_
#define HALO_OPENCL_EXECUTABLE_HPP_

#include <cstdint>

#include "cl_library.hpp"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cl {

struct Device;

// Most parameters (bindings plus constants) an entry point may take.
inline constexpr uint32_t kMaxKernelParameters = 64;

struct EntryPoint {
  halo_entry_point_info_t info = {};
  // The executable's own kernel; dispatches clone it.
  cl_kernel kernel = nullptr;
  size_t local_size[3] = {};
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
  cl_program program = nullptr;
  // Sorted by name, so ordinals do not depend on the implementation.
  EntryPoint* entry_points = nullptr;
  uint32_t entry_point_count = 0;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_executable_vtable_t kVtable;

  explicit Executable(Device* device) noexcept;
  ~Executable();

  // Builds |params| for |device|. Returns a new reference in
  // |out_executable|; INVALID_ARGUMENT for a format the device does not
  // take, empty data, a program that does not build (with the build log),
  // or a kernel whose parameters do not follow the layout above.
  static halo_status_t create(Device* device,
                              const halo_executable_params_t& params,
                              halo_executable_t** out_executable) noexcept;

  // Returns the executable when |executable| is an opencl executable, else
  // NULL.
  static Executable* from(halo_executable_t* executable) noexcept {
    return sdk::object_from<Executable>(executable);
  }

  // Returns in |*out| a new kernel object for one dispatch of entry point
  // |ordinal| (< entry_point_count), whose arguments the caller sets.
  halo_status_t make_dispatch_kernel(uint32_t ordinal, cl_kernel* out) const
      noexcept;

  static Executable* cast(halo_executable_t* executable) noexcept {
    return sdk::object_cast<Executable>(executable);
  }
  halo_executable_t* handle() noexcept {
    return reinterpret_cast<halo_executable_t*>(this);
  }

 private:
  halo_status_t build(const halo_executable_params_t& params) noexcept;
  halo_status_t build_failure(cl_int code) noexcept;
  halo_status_t load_entry_points();
  halo_status_t check_parameterless(const cl_kernel* kernels,
                                    cl_uint count) noexcept;

  // Set when the program built only without -cl-kernel-arg-info: that
  // build's failure, returned if a kernel turns out to need argument info.
  halo_status_t arg_info_refusal_ = nullptr;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_EXECUTABLE_HPP_
