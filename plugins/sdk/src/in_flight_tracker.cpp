#include "halo/sdk/in_flight_tracker.hpp"

#include <chrono>

#include "halo/sdk/intrusive_list.hpp"

namespace halo::sdk {

void InFlightTracker::track(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  submission->sequence = next_sequence_++;
  list_push_back<&Submission::previous_tracked, &Submission::next_tracked>(
      head_, tail_, submission);
}

void InFlightTracker::untrack(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool was_oldest =
      list_remove<&Submission::previous_tracked, &Submission::next_tracked>(
          head_, tail_, submission);
  if (was_oldest) progress_.notify_all();
}

void InFlightTracker::retire(Submission* submission) noexcept {
  submission->release_resources();
  submission->release_device_unless_last();
  untrack(submission);
}

halo_status_t InFlightTracker::wait_idle(Host host,
                                         halo_time_ns_t deadline) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = next_sequence_;
  auto idle = [&] { return head_ == nullptr || head_->sequence >= target; };
  if (idle()) return HALO_OK;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) {
    return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE) {
    progress_.wait(lock, idle);
    return HALO_OK;
  }
  // libstdc++'s steady_clock is CLOCK_MONOTONIC, the clock of deadlines.
  auto until = std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(deadline));
  if (progress_.wait_until(lock, until, idle)) return HALO_OK;
  return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

}  // namespace halo::sdk
