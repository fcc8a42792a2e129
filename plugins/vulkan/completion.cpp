// The queue's completions: submissions the GPU finished, in hand-off
// order, are completed (host signals, failure propagation), let go of what
// they hold, and are destroyed in the notification thread's release pass.
#include "device.hpp"
#include "exit_guard.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "submission.hpp"
#include "vk_status.hpp"

namespace halo::vk {

void Queue::collect_completed() noexcept {
  Submission* head = nullptr;
  Submission** tail = &head;
  uint64_t done = completed_.load(std::memory_order_relaxed);
  {
    // Each submission is finished once its own done signal shows, oldest
    // first. Consecutive submissions mostly name one semaphore (a chain's,
    // or the completion semaphore), read once for all of them.
    std::lock_guard<std::mutex> lock(schedule_mutex_);
    VkSemaphore read = VK_NULL_HANDLE;
    uint64_t payload = 0;
    while (in_flight_head_ != nullptr) {
      Submission* oldest = in_flight_head_;
      if (oldest->done_semaphore != read) {
        read = oldest->done_semaphore;
        VkResult result = device_->vkd.vkGetSemaphoreCounterValue(
            device_->device, read, &payload);
        if (result != VK_SUCCESS) {
          host_.log(HALO_LOG_LEVEL_ERROR,
                    "queue: vkGetSemaphoreCounterValue failed: %s (%d)",
                    result_name(result), static_cast<int>(result));
          break;
        }
      }
      if (payload < oldest->done_value) break;
      done = oldest->number;
      *tail = oldest;
      tail = &oldest->next_in_flight;
      in_flight_head_ = oldest->next_in_flight;
    }
    *tail = nullptr;
    if (in_flight_head_ == nullptr) in_flight_tail_ = nullptr;
  }
  // Before the completed submissions let go of anything (so before a
  // wait_idle that waits for them can return): a completion proves the
  // driver done with the waits of every submission before it.
  completed_.store(done, std::memory_order_seq_cst);
  destroy_retired(done);
  while (head != nullptr) {
    Submission* next = head->next_in_flight;
    complete(head);
    head = next;
  }
}

void Queue::complete(Submission* submission) noexcept {
  // A wait the GPU satisfied may have failed on the host meanwhile: the
  // work ran, but its signals carry the failure on (DESIGN.md §5).
  for (size_t i = 0; i < submission->wait_count(); ++i) {
    const sdk::Submission::Wait& wait = submission->wait(i);
    if (device_->owns(wait.semaphore) &&
        Semaphore::cast(wait.semaphore)->failed()) {
      submission->record_failure(
          Semaphore::cast(wait.semaphore)->shadow.clone_failure());
      break;
    }
  }
  // Signals the ones the GPU did not, or fails them all.
  submission->complete();
  // A failed shared semaphore's failure value waits for the GPU signals
  // pending on it (Semaphore::publish_failure); they have landed now.
  for (size_t i = 0; i < submission->signal_count(); ++i) {
    halo_semaphore_t* handle = submission->signal(i).semaphore;
    if (!device_->owns(handle)) continue;
    Semaphore* semaphore = Semaphore::cast(handle);
    if (semaphore->shared() && semaphore->failed()) {
      semaphore->publish_failure();
    }
  }
  finish(submission);
}

void Queue::finish(Submission* submission) noexcept {
  in_flight_.retire(submission);
  if (thread_.is_current_thread()) {
    // The device's last reference goes in the release pass (see
    // release_finished).
    submission->next_finished = finished_head_;
    finished_head_ = submission;
  } else {
    Submission::destroy(submission);  // The caller holds the device too.
  }
}

bool Queue::release_finished() noexcept {
  if (finished_head_ == nullptr && dropped_head_ == nullptr) return false;
  // While the process exits, leave everything to its end (exit_guard.hpp),
  // still linked from the queue, which the parked thread keeps reachable.
  if (!begin_driver_use()) return true;
  Submission* finished = finished_head_;
  Semaphore* dropped = dropped_head_;
  finished_head_ = nullptr;
  dropped_head_ = nullptr;
  // From here on only locals, but for the memory given back: a finished
  // submission holds a device reference only when it was the last one
  // (InFlightTracker::retire), and a dropped semaphore holds one too, so
  // either release may destroy the device and this queue. No reference of
  // our own around the pass: that would outlive a wait_idle, and the
  // application's release of the device after it would then leave the
  // teardown to this thread. So the submissions that hold no device
  // reference go first, their memory given back to this queue for the next
  // submitting thread to free; then any that holds one.
  Submission* holding_device = nullptr;
  while (finished != nullptr) {
    Submission* next = finished->next_finished;
    if (finished->device() == nullptr) {
      Submission::destroy(finished, &returned_allocations_);
    } else {
      finished->next_finished = holding_device;
      holding_device = finished;
    }
    finished = next;
  }
  while (holding_device != nullptr) {
    Submission* next = holding_device->next_finished;
    Submission::destroy(holding_device);
    holding_device = next;
  }
  while (dropped != nullptr) {
    Semaphore* next = dropped->next_dropped;
    dropped->host.release(&dropped->header);
    dropped = next;
  }
  end_driver_use();
  return sdk::PluginThreads::current_thread_abandoned();
}

}  // namespace halo::vk
