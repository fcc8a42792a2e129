// A complete timeline semaphore for a plugin whose device has no native
// timeline primitive (or that starts without one): the SDK's futex-backed
// timeline behind the SDK's semaphore vtable. The cpu plugin's semaphores
// are these, and a C plugin gets them through halo/sdk/c/semaphore.h.
#ifndef HALO_SDK_HOST_SEMAPHORE_HPP_
#define HALO_SDK_HOST_SEMAPHORE_HPP_

#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

// The header comes first so the handle and the object share an address.
struct HostSemaphore {
  halo_object_t header;
  Host host;
  // The creating device, retained so that it outlives its semaphores.
  halo_device_t* device;
  WaitableTimeline timeline;

  HostSemaphore(Host host, halo_device_t* device, uint64_t initial_value);
  ~HostSemaphore();

  // Creates a semaphore of |device| (borrowed; retained by the semaphore).
  // Returns a new reference in |out_semaphore| (libhalo has checked it and
  // |initial_value|), or RESOURCE_EXHAUSTED.
  static halo_status_t create(Host host, halo_device_t* device,
                              uint64_t initial_value,
                              halo_semaphore_t** out_semaphore) noexcept;

  // True when |semaphore| (any plugin's, or NULL) is a HostSemaphore.
  static bool is(halo_semaphore_t* semaphore) noexcept;

  static HostSemaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<HostSemaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }
};

// Waits for ALL or ANY of |count| (HostSemaphore, value) pairs until
// |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of a
// failed semaphore. An empty list is OK at once. A poll allocates nothing;
// blocking on several semaphores registers a timepoint on each that wakes
// one futex word on the waiter's stack, so nothing busy-spins. Borrows
// everything. Thread-safe.
halo_status_t wait_host_semaphores(Host host, halo_wait_mode_t mode,
                                   size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_HOST_SEMAPHORE_HPP_
