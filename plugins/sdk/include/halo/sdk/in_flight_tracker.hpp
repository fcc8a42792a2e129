// The submissions of a queue that have not finished, oldest first: what
// queue_wait_idle waits on.
#ifndef HALO_SDK_IN_FLIGHT_TRACKER_HPP_
#define HALO_SDK_IN_FLIGHT_TRACKER_HPP_

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "halo/sdk/host.hpp"
#include "halo/sdk/submission.hpp"

namespace halo::sdk {

class InFlightTracker {
 public:
  // Numbers |submission| and appends it. Call before the submission can
  // finish (before register_waits). Thread-safe.
  void track(Submission* submission) noexcept;
  // Removes a finished submission; call once it has released everything
  // but the device (release_resources), so that wait_idle promises that.
  // Thread-safe.
  void untrack(Submission* submission) noexcept;
  // Ends a finished submission's part in wait_idle: releases what it holds,
  // the device too unless that is the device's last reference, and
  // untracks it; the caller then destroys it. So once wait_idle returns,
  // the application's release of its last device reference destroys the
  // device on its own thread, with every plugin thread of it joined, never
  // later on a queue's thread. A last reference (nobody can wait_idle then)
  // goes in Submission::destroy, after the untrack, as it destroys this
  // tracker's queue. Thread-safe.
  void retire(Submission* submission) noexcept;
  // Blocks until every submission tracked before the call is untracked
  // (OK) or |deadline| passes (DEADLINE_EXCEEDED). Thread-safe; never from
  // a thread the submissions need to finish.
  halo_status_t wait_idle(Host host, halo_time_ns_t deadline) noexcept;

 private:
  std::mutex mutex_;
  // Notified when the oldest submission goes: only that ends a wait_idle.
  std::condition_variable progress_;
  Submission* head_ = nullptr;
  Submission* tail_ = nullptr;
  uint64_t next_sequence_ = 0;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_IN_FLIGHT_TRACKER_HPP_
