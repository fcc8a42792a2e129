// The grids an OpenCL device can run: a dispatch's workgroup counts times
// its entry point's workgroup size, checked against the device's limits
// when the dispatch is recorded, so that the implementation never sees a
// grid it cannot run.
#ifndef HALO_OPENCL_DISPATCH_GRID_HPP_
#define HALO_OPENCL_DISPATCH_GRID_HPP_

#include <cstddef>
#include <cstdint>

#include "halo/sdk/host.hpp"

namespace halo::cl {

// The most workgroups one dispatch may have in all. OpenCL reports no such
// limit, but implementations count workgroups in 32 bits: PoCL 3.1 wraps
// the count of 2^32 workgroups to 0 and dies of SIGFPE dividing by it.
inline constexpr uint64_t kMaxWorkgroups = UINT32_MAX;

// Returns the largest value of the size_t of a device of |address_bits|
// (CL_DEVICE_ADDRESS_BITS), and of the host's, whichever is smaller.
uint64_t size_max_for_address_bits(uint32_t address_bits) noexcept;

// Stores in |global| the global work size of |workgroup_count| workgroups
// of |local_size| work-items each, on a device whose size_t holds at most
// |size_max|. Returns INVALID_ARGUMENT naming halo_command_buffer_dispatch,
// params->workgroup_count and the limit when the global size of a
// dimension is above |size_max| (OpenCL's limit on each dimension), when
// the work-items in all are (the device's linear global id would wrap), or
// when the workgroups in all are more than kMaxWorkgroups. A grid without
// work (a count of 0) passes the last two.
halo_status_t check_grid(sdk::Host host, const uint32_t (&workgroup_count)[3],
                         const size_t (&local_size)[3], uint64_t size_max,
                         size_t (&global)[3]) noexcept;

}  // namespace halo::cl

#endif  // HALO_OPENCL_DISPATCH_GRID_HPP_
