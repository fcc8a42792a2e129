// A timeline whose host waits block on a futex, and the multi-semaphore
// wait built on its timepoints: what a host-side semaphore needs beyond the
// timeline core (the cpu and opencl plugins both keep their payload so).
#ifndef HALO_SDK_WAITABLE_TIMELINE_HPP_
#define HALO_SDK_WAITABLE_TIMELINE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "halo/sdk/host.hpp"
#include "halo/sdk/timeline.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

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

// Returns the timeline of |semaphore|, a semaphore of the calling plugin.
using TimelineOf = WaitableTimeline& (*)(halo_semaphore_t* semaphore) noexcept;

// Waits for ALL or ANY of |count| (semaphore, value) pairs of the calling
// plugin's timelines until |deadline|: OK when met, DEADLINE_EXCEEDED, or a
// copy of the failure of a failed semaphore. One pair is a plain wait;
// several go through sdk::wait_semaphores (multi_wait.hpp), the multi-wait
// libhalo runs too: an empty list is OK at once, a poll allocates nothing,
// and blocking registers a timepoint on each (on the stack up to 8, else
// from |host|) that wakes one futex word. Borrows everything. Thread-safe.
halo_status_t wait_timelines(Host host, halo_wait_mode_t mode, size_t count,
                             halo_semaphore_t* const* semaphores,
                             const uint64_t* values, halo_time_ns_t deadline,
                             TimelineOf timeline_of) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_WAITABLE_TIMELINE_HPP_
