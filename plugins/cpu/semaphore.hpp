// The cpu plugin's timeline semaphore: the SDK's host semaphore (the
// futex-backed timeline core behind the SDK's semaphore vtable), which
// needs nothing of the cpu device.
#ifndef HALO_CPU_SEMAPHORE_HPP_
#define HALO_CPU_SEMAPHORE_HPP_

#include "halo/sdk/host_semaphore.hpp"

namespace halo::cpu {

using Semaphore = sdk::HostSemaphore;

// See sdk::wait_host_semaphores.
inline halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                                     size_t count,
                                     halo_semaphore_t* const* semaphores,
                                     const uint64_t* values,
                                     halo_time_ns_t deadline) noexcept {
  return sdk::wait_host_semaphores(host, mode, count, semaphores, values,
                                   deadline);
}

}  // namespace halo::cpu

#endif  // HALO_CPU_SEMAPHORE_HPP_
