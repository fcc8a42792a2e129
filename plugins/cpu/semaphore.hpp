// The cpu plugin's timeline semaphore: the SDK timeline core plus a futex
// word that host waiters sleep on.
#ifndef HALO_CPU_SEMAPHORE_HPP_
#define HALO_CPU_SEMAPHORE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::cpu {

// The timeline core with futex-blocking host waits (the SDK's).
using WaitableTimeline = sdk::WaitableTimeline;

// A semaphore object. The header comes first so the handle and the object
// share an address; the struct has no virtual functions of its own.
struct Semaphore {
  halo_object_t header;
  sdk::Host host;
  // The creating device, retained so that it outlives its semaphores.
  halo_device_t* device;
  WaitableTimeline timeline;

  Semaphore(sdk::Host host, halo_device_t* device, uint64_t initial_value);
  ~Semaphore();

  // Creates a semaphore of |device| (borrowed; retained by the semaphore).
  // Returns a new reference in |out_semaphore| (libhalo has checked it and
  // |initial_value|).
  static halo_status_t create(sdk::Host host, halo_device_t* device,
                              uint64_t initial_value,
                              halo_semaphore_t** out_semaphore) noexcept;

  // Returns true when |semaphore| (any plugin's) is a cpu semaphore.
  static bool is_cpu_semaphore(halo_semaphore_t* semaphore) noexcept;

  static Semaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<Semaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }
};

// Waits for ALL or ANY of |count| (cpu semaphore, value) pairs until
// |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of a
// failed semaphore. An empty list is OK at once. A poll allocates nothing;
// blocking on several semaphores registers a timepoint on each that wakes
// one futex word on the waiter's stack, so nothing busy-spins. Borrows
// everything. Thread-safe.
halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_SEMAPHORE_HPP_
