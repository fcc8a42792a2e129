// A host wait on several semaphores at once (DESIGN.md §4) that needs
// nothing of them but a non-blocking query and timepoints, so the semaphores
// may belong to any mix of devices and plugins. It is the one multi-wait of
// halo: the cpu and opencl plugins run it over their own timelines
// (wait_timelines in waitable_timeline.hpp), and libhalo over semaphores of
// different plugins.
#ifndef HALO_SDK_MULTI_WAIT_HPP_
#define HALO_SDK_MULTI_WAIT_HPP_

#include <cstddef>
#include <cstdint>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

// The semaphores of one multi-wait's (semaphore, value) pairs, by index, as
// the wait reaches them. Every method is called on the waiting thread, but
// take_failure, which runs in the timepoint callbacks.
class MultiWaitSemaphores {
 public:
  // Stores the payload of pair |index|'s semaphore in |out_payload| without
  // blocking. Any status (a copy of the failure of a failed semaphore) ends
  // the wait with that status.
  virtual halo_status_t query(size_t index, uint64_t* out_payload) noexcept = 0;
  // Registers |timepoint| (filled in by the wait) on pair |index|'s
  // semaphore. A status ends the wait: the timepoints registered before it
  // are cancelled and the status is returned, unless the wait was met or
  // failed meanwhile.
  virtual halo_status_t acquire_timepoint(
      size_t index, halo_timepoint_t* timepoint) noexcept = 0;
  // Cancels |timepoint| on pair |index|'s semaphore: on return its callback
  // has run to completion or never will.
  virtual void cancel_timepoint(size_t index,
                                halo_timepoint_t* timepoint) noexcept = 0;
  // Takes the failure status (not NULL) that pair |index|'s timepoint was
  // called back with, and returns the status the wait reports for it (not
  // NULL). Runs inside a timepoint callback: short, never blocking.
  virtual halo_status_t take_failure(size_t index,
                                     halo_status_t status) noexcept {
    (void)index;
    return status;
  }

 protected:
  ~MultiWaitSemaphores() = default;
};

// Waits until ALL or ANY of the |count| pairs (|semaphores| index i, with
// |values|[i]) are reached, until |deadline|. Returns OK when met; the first
// failure found (a failed semaphore anywhere in the list wins over reached
// ones, in ANY mode too); a status query or acquire_timepoint returned; or
// |host|'s immortal DEADLINE_EXCEEDED. An empty list is OK at once. It
// queries every pair first; a poll (HALO_DEADLINE_INFINITE_PAST) ends there,
// allocating nothing. Blocking registers a timepoint on each semaphore (on
// the stack up to 8, else from |host|) that wakes one futex word, and
// cancels them all before returning. Borrows everything. Thread-safe.
halo_status_t wait_semaphores(Host host, halo_wait_mode_t mode, size_t count,
                              const uint64_t* values, halo_time_ns_t deadline,
                              MultiWaitSemaphores& semaphores) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_MULTI_WAIT_HPP_
