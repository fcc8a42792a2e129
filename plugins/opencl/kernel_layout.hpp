// Reading a kernel's parameters into an entry point's layout (bindings,
// then constants) and checking that they follow it (see executable.hpp).
#ifndef HALO_OPENCL_KERNEL_LAYOUT_HPP_
#define HALO_OPENCL_KERNEL_LAYOUT_HPP_

#include "cl_library.hpp"
#include "executable.hpp"
#include "halo/sdk/host.hpp"

namespace halo::cl {

// Fills |entry| (whose kernel is set) from the kernel's name, parameters
// and reqd_work_group_size on |device| (both the dispatch's local size and
// the entry point's workgroup_size). Returns INVALID_ARGUMENT, naming the
// kernel and parameter, for a name longer than the 127 bytes of
// halo_entry_point_info_t::name, or a layout the plugin cannot bind: a
// __global pointer after a scalar, a __local or __constant pointer, a scalar
// that is not a 32- or 64-bit int, uint, long, ulong, float or double (or
// whose type name is longer than 127 bytes), too many parameters, or no
// reqd_work_group_size. Needs the program built with -cl-kernel-arg-info.
halo_status_t describe_kernel(sdk::Host host, const Api& api,
                              cl_device_id device, EntryPoint* entry) noexcept;

}  // namespace halo::cl

#endif  // HALO_OPENCL_KERNEL_LAYOUT_HPP_
