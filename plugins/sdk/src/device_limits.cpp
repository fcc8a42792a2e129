// Checks against a device's reported dispatch limits (device_limits.hpp).
#include "halo/sdk/device_limits.hpp"

namespace halo::sdk {
namespace {

constexpr char kDispatch[] = "halo_command_buffer_dispatch";
constexpr char kCreate[] = "halo_executable_create";

// |value| is above |limit|, a limit of 0 meaning none was reported.
bool above(uint64_t value, uint64_t limit) { return limit != 0 && value > limit; }

}  // namespace

halo_status_t check_workgroup_count(
    Host host, const halo_dispatch_params_t &params,
    const halo_device_capabilities_t &caps) noexcept {
  const uint32_t *count = params.workgroup_count;
  for (int d = 0; d < 3; ++d) {
    if (above(count[d], caps.max_workgroup_count[d])) {
      return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->workgroup_count[%d] %u is above the "
                              "device's max_workgroup_count[%d] %u",
                              kDispatch, d, count[d], d,
                              caps.max_workgroup_count[d]);
    }
  }
  uint64_t total = 0;
  const bool overflow =
      __builtin_mul_overflow(uint64_t{count[0]}, uint64_t{count[1]}, &total) ||
      __builtin_mul_overflow(total, uint64_t{count[2]}, &total);
  if (overflow || above(total, caps.max_workgroup_count_total)) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->workgroup_count %u x %u x %u is more workgroups than the "
        "device's max_workgroup_count_total %llu",
        kDispatch, count[0], count[1], count[2],
        static_cast<unsigned long long>(caps.max_workgroup_count_total));
  }
  return HALO_OK;
}

halo_status_t check_entry_point_limits(
    Host host, const char *name, const halo_entry_point_info_t &entry_point,
    const halo_device_capabilities_t &caps) noexcept {
  if (above(entry_point.binding_count, caps.max_binding_count)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data's entry point '%s' takes %u "
                            "bindings, above the device's max_binding_count %u",
                            kCreate, name, entry_point.binding_count,
                            caps.max_binding_count);
  }
  if (above(entry_point.constant_size, caps.max_constant_size)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data's entry point '%s' takes %u "
                            "bytes of constants, above the device's "
                            "max_constant_size %u",
                            kCreate, name, entry_point.constant_size,
                            caps.max_constant_size);
  }
  const uint32_t *size = entry_point.workgroup_size;
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (above(size[d], caps.max_workgroup_size[d])) {
      return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->data's entry point '%s' declares "
                              "workgroup_size[%d] %u, above the device's "
                              "max_workgroup_size[%d] %u",
                              kCreate, name, d, size[d], d,
                              caps.max_workgroup_size[d]);
    }
    invocations *= size[d];
  }
  if (above(invocations, caps.max_workgroup_invocations)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data's entry point '%s' declares "
                            "%u x %u x %u work-items, above the device's "
                            "max_workgroup_invocations %u",
                            kCreate, name, size[0], size[1], size[2],
                            caps.max_workgroup_invocations);
  }
  return HALO_OK;
}

}  // namespace halo::sdk
