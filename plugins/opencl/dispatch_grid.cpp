// Dispatch grid limits (see dispatch_grid.hpp).
#include "dispatch_grid.hpp"

namespace halo::cl {
namespace {

constexpr char kFunction[] = "halo_command_buffer_dispatch";

}  // namespace

uint64_t size_max_for_address_bits(uint32_t address_bits) noexcept {
  const uint64_t device = address_bits >= 64 || address_bits == 0
                              ? UINT64_MAX
                              : (uint64_t{1} << address_bits) - 1;
  return device < SIZE_MAX ? device : uint64_t{SIZE_MAX};
}

halo_status_t check_grid(sdk::Host host, const uint32_t (&workgroup_count)[3],
                         const size_t (&local_size)[3], uint64_t size_max,
                         size_t (&global)[3]) noexcept {
  const uint32_t* count = workgroup_count;
  for (int d = 0; d < 3; ++d) {
    uint64_t size = 0;
    if (__builtin_mul_overflow(uint64_t{count[d]}, uint64_t{local_size[d]},
                               &size) ||
        size > size_max) {
      return host.make_status(
          HALO_STATUS_INVALID_ARGUMENT,
          "%s: params->workgroup_count[%d] %u times the entry point's "
          "workgroup size %zu is more work-items than the device's size_t "
          "holds (%llu)",
          kFunction, d, count[d], local_size[d],
          static_cast<unsigned long long>(size_max));
    }
    global[d] = static_cast<size_t>(size);
  }
  uint64_t work_items = 0;
  if (__builtin_mul_overflow(uint64_t{global[0]}, uint64_t{global[1]},
                             &work_items) ||
      __builtin_mul_overflow(work_items, uint64_t{global[2]}, &work_items) ||
      work_items > size_max) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->workgroup_count %u x %u x %u of %zu x %zu x %zu "
        "work-items each is more work-items in all than the device's size_t "
        "holds (%llu)",
        kFunction, count[0], count[1], count[2], local_size[0], local_size[1],
        local_size[2], static_cast<unsigned long long>(size_max));
  }
  uint64_t workgroups = 0;
  if (__builtin_mul_overflow(uint64_t{count[0]}, uint64_t{count[1]},
                             &workgroups) ||
      __builtin_mul_overflow(workgroups, uint64_t{count[2]}, &workgroups) ||
      workgroups > kMaxWorkgroups) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->workgroup_count %u x %u x %u is more workgroups than "
        "the %llu (2^32 - 1) the opencl plugin runs in one dispatch",
        kFunction, count[0], count[1], count[2],
        static_cast<unsigned long long>(kMaxWorkgroups));
  }
  return HALO_OK;
}

}  // namespace halo::cl
