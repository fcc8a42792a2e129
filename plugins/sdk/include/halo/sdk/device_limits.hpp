// Checks against the dispatch limits a device reports (ABI 1.2,
// halo_device_capabilities_t), so that a plugin enforces exactly what it
// reports, from the one struct it reports, and every plugin answers a call
// beyond a limit with the same code and a message naming the call, the
// argument and the limit.
#ifndef HALO_SDK_DEVICE_LIMITS_HPP_
#define HALO_SDK_DEVICE_LIMITS_HPP_

#include "halo/command_buffer.h"
#include "halo/device.h"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"

namespace halo::sdk {

// Returns INVALID_ARGUMENT "halo_command_buffer_dispatch:
// params->workgroup_count[i] N is above the device's max_workgroup_count[i]
// M" for a dimension above its limit, or naming max_workgroup_count_total
// when the product of the three is above that. A device that reports a
// limit of 0 (none reported: an older ABI) is not checked against it.
halo_status_t check_workgroup_count(
    Host host, const halo_dispatch_params_t &params,
    const halo_device_capabilities_t &caps) noexcept;

// Returns INVALID_ARGUMENT "halo_executable_create: params->data's entry
// point '|name|' …" when |entry_point| takes more bindings or constant
// bytes, or declares a larger workgroup size (in a dimension or in all),
// than |caps| allow, naming the limit. A workgroup size of 0 (none fixed)
// passes.
halo_status_t check_entry_point_limits(
    Host host, const char *name, const halo_entry_point_info_t &entry_point,
    const halo_device_capabilities_t &caps) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_DEVICE_LIMITS_HPP_
