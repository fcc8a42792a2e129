// The cpu plugin's timeline semaphore: the SDK timeline core plus a futex
// word that host waiters sleep on.
#ifndef HALO_CPU_SEMAPHORE_HPP_
#define HALO_CPU_SEMAPHORE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/timeline.hpp"
#include "halo/semaphore.h"

namespace halo::cpu {

// The timeline core with blocking host waits.
//
// Waiters announce themselves in waiters_ and sleep on epoch_; a payload
// change bumps epoch_ and wakes them only when someone is announced. The
// announcement (seq_cst) and the payload store (seq_cst) form a Dekker pair:
// either the signaller sees the waiter, or the waiter's re-check sees the new
// payload, so no wake-up is lost and signals with nobody waiting make no
// system call.
class WaitableTimeline final : public sdk::Timeline {
 public:
  using Timeline::Timeline;

  // Blocks until the payload reaches |value| (OK), |deadline| passes
  // (DEADLINE_EXCEEDED) or the timeline fails (a copy of the failure). A
  // poll (HALO_DEADLINE_INFINITE_PAST) makes no system call and allocates
  // nothing. Thread-safe. Inline so that a wait already satisfied is one
  // load and compare.
  halo_status_t wait(uint64_t value, halo_time_ns_t deadline) noexcept {
    const uint64_t current = payload();
    if (current >= value && current < HALO_SEMAPHORE_FAILURE_VALUE) [[likely]] {
      return HALO_OK;
    }
    return wait_slow(value, deadline);
  }

 protected:
  void on_changed(uint64_t payload) noexcept override;

 private:
  // Sets |*done| when |payload| settles a wait for |value|, and returns the
  // wait's result then: OK, or a copy of the failure status.
  halo_status_t settle(uint64_t payload, uint64_t value, bool* done) noexcept;
  // Everything but the satisfied case: polls that miss, blocking, failure.
  // Out of line so that its register saves stay off the fast path.
  [[gnu::noinline]] halo_status_t wait_slow(uint64_t value,
                                            halo_time_ns_t deadline) noexcept;

  // The immortal DEADLINE_EXCEEDED status, fetched once so a poll that misses
  // makes no call into libhalo.
  halo_status_t deadline_exceeded_ =
      host().status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);

  std::atomic<uint32_t> epoch_{0};
  std::atomic<uint32_t> waiters_{0};
};

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
  // Returns a new reference in |out_semaphore|. Returns INVALID_ARGUMENT
  // when |initial_value| is above HALO_SEMAPHORE_MAX_VALUE.
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
