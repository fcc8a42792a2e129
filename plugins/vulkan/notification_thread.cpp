// The queue's notification thread: one vkWaitSemaphores(ANY) over the wake
// semaphore, the completion semaphore and every watched semaphore (or,
// with sliced waits, one of them at a time); on each wake it hands ready
// submissions to the GPU, re-examines deferred ones, finishes completed ones
// and fires timepoints. On GPUs it first polls, while work flows: the end
// of the oldest submission in flight, or the next hand-off (poll).
//
// Lifetime: every submission and every watched semaphore holds a reference
// to the device, so the device (and this queue) can only die on this
// thread when it drops such a reference. It does so only in
// release_finished, at the end of an iteration, touching nothing of the
// queue once it started releasing; when a release destroys the device,
// Queue::destroy runs on this thread and marks it abandoned
// (plugin_threads.hpp), and the loop returns without touching the queue
// again.
//
// The memory of finished submissions is given back for the next
// submissions to reuse (sdk::ReturnedAllocations); when nothing is in
// flight and no submission comes for CompletionWorker::kIdleDelay, the
// thread frees it itself, so that a queue left alone keeps none.
#include <algorithm>

#include "device.hpp"
#include "exit_guard.hpp"
#include "halo/sdk/spin.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "submission.hpp"
#include "vk_status.hpp"

namespace halo::vk {

void Queue::run() noexcept {
  while (iterate()) {
  }
  // Kept out of the driver while the process exits: stay parked, so that
  // what this thread holds stays reachable (leak checkers run at the very
  // end), until a late Queue::destroy asks the thread to end.
  if (!sdk::PluginThreads::current_thread_abandoned()) {
    park_while_exiting(stopping_);
  }
}

bool Queue::iterate() noexcept {
  // While the process exits, leave the driver and everything else to its
  // end (exit_guard.hpp).
  if (!begin_driver_use()) return false;
  const bool go_on = iterate_in_driver();
  end_driver_use();
  return go_on;
}

bool Queue::iterate_in_driver() noexcept {
  // Read before looking at anything: a change made after this read wakes
  // the sleep below at once (see wake.hpp).
  const uint64_t wake_value = device_->wake.current();
  if (stopping_.load(std::memory_order_seq_cst)) return false;
  drain_ready();
  if (reevaluate_.exchange(false, std::memory_order_acq_rel)) reevaluate();
  collect_completed();
  refresh_watched();
  if (release_finished()) return false;
  if (!poll(wake_value)) sleep(wake_value);
  return true;
}

bool Queue::poll(uint64_t wake_value) noexcept {
  if (!device_->adapter->polls_completion) return false;
  bool watching = false;
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    watching = !watched_.empty();
  }
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;
  uint64_t hand_offs = 0;
  {
    std::lock_guard<std::mutex> lock(schedule_mutex_);
    polling_ = !watching;
    if (watching) return false;
    hand_offs = hand_offs_.load(std::memory_order_relaxed);
    // Only this thread finishes submissions, so the oldest stays in flight,
    // and its semaphore alive, while the thread polls.
    if (in_flight_head_ != nullptr) {
      semaphore = in_flight_head_->done_semaphore;
      value = in_flight_head_->done_value;
    }
  }
  const bool came = sdk::spin_until(kPollPatience, kPollInterval, [&] {
    if (device_->wake.current() != wake_value) return true;
    if (semaphore == VK_NULL_HANDLE) {
      return hand_offs_.load(std::memory_order_relaxed) != hand_offs;
    }
    uint64_t payload = 0;
    // A failed read ends the poll too: collect_completed reads again and
    // logs it.
    return device_->vkd.vkGetSemaphoreCounterValue(device_->device, semaphore,
                                                   &payload) != VK_SUCCESS ||
           payload >= value;
  });
  if (came) return true;
  // From here on a hand-off signals the completion semaphore again, and
  // the sleep hands the GPU a probe behind any submission handed off
  // without it (completion_to_await).
  std::lock_guard<std::mutex> lock(schedule_mutex_);
  polling_ = false;
  return false;
}

void Queue::sleep(uint64_t wake_value) noexcept {
  if (device_->adapter->sliced_waits) {
    sleep_sliced(wake_value);
    return;
  }
  wait_semaphores_.clear();
  wait_values_.clear();
  bool idle = false;
  try {
    wait_semaphores_.push_back(device_->wake.semaphore());
    wait_values_.push_back(wake_value + 1);
    {
      // The oldest submission's end, or else the next hand-off's: so the
      // thread also wakes when a submission made meanwhile completes. (The
      // wait then always names two semaphores, which also keeps the 1.3.2xx
      // validation layers' tracking of single-semaphore waits, which can lag
      // behind host signals from other threads by its 10 s timeout, out of
      // the way.)
      std::lock_guard<std::mutex> lock(schedule_mutex_);
      idle = idle_with_memory_given_back();
      const uint64_t completion = completion_to_await();
      if (completion != 0) {
        wait_semaphores_.push_back(completion_);
        wait_values_.push_back(completion);
      } else {
        wait_semaphores_.push_back(in_flight_head_->done_semaphore);
        wait_values_.push_back(in_flight_head_->done_value);
      }
    }
    std::lock_guard<std::mutex> lock(watch_mutex_);
    for (Semaphore* semaphore : watched_) {
      uint64_t native = 0;
      halo_status_t status = semaphore->native_value(&native);
      if (status != HALO_OK) {
        host_.free(status);
        continue;
      }
      wait_semaphores_.push_back(semaphore->semaphore);
      wait_values_.push_back(native + 1);
    }
  } catch (...) {
    host_.log(HALO_LOG_LEVEL_ERROR, "queue: out of memory while waiting");
  }
  const VkResult result = sleep_on(
      static_cast<uint32_t>(wait_semaphores_.size()), wait_semaphores_.data(),
      wait_values_.data(), idle ? kIdleDelayNs : UINT64_MAX);
  if (idle && result == VK_TIMEOUT) returned_allocations_.free_all();
}

void Queue::sleep_sliced(uint64_t wake_value) noexcept {
  // One semaphore at a time (Adapter::sliced_waits). With work in flight,
  // the oldest submission's end, a slice at a time so that wakes are
  // seen too; watched semaphores change on the GPU only through work in
  // flight, and their shadows catch up when it completes. Otherwise the
  // wake semaphore: for as long as it takes when nothing is watched, and a
  // slice at a time when something is, in case a watched semaphore's
  // signal became visible only after its submission's completion.
  VkSemaphore semaphore = device_->wake.semaphore();
  uint64_t value = wake_value + 1;
  uint64_t timeout = UINT64_MAX;
  bool idle = false;
  {
    std::lock_guard<std::mutex> lock(schedule_mutex_);
    idle = idle_with_memory_given_back();
    if (in_flight_head_ != nullptr) {
      const uint64_t completion = completion_to_await();
      semaphore =
          completion != 0 ? completion_ : in_flight_head_->done_semaphore;
      value = completion != 0 ? completion : in_flight_head_->done_value;
      timeout = kWaitSliceNs;
    }
  }
  if (timeout == UINT64_MAX) {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    if (!watched_.empty()) timeout = kWaitSliceNs;
  }
  if (idle) timeout = std::min(timeout, kIdleDelayNs);
  if (sleep_on(1, &semaphore, &value, timeout) == VK_TIMEOUT && idle) {
    returned_allocations_.free_all();
  }
}

bool Queue::idle_with_memory_given_back() const noexcept {
  return in_flight_head_ == nullptr && !returned_allocations_.empty();
}

uint64_t Queue::completion_to_await() noexcept {
  if (in_flight_head_ == nullptr) return completion_value_ + 1;
  // The latest completion value shows every batch up to its own finished.
  if (completion_number_ >= in_flight_head_->number) return completion_value_;
  // The oldest submission ends with a signal of its own, which the thread
  // does not sleep on: an application thread may be waiting on that
  // semaphore too, and NVIDIA's driver (580) then wakes one of the two
  // tens to hundreds of microseconds late (bench/README.md). A probe
  // behind the work in flight signals the completion semaphore instead.
  const uint64_t value = completion_value_ + 1;
  VkTimelineSemaphoreSubmitInfo timeline = {};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &value;
  VkSubmitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &timeline;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &completion_;
  VkResult result =
      device_->vkd.vkQueueSubmit(device_->vk_queue, 1, &info, VK_NULL_HANDLE);
  if (result != VK_SUCCESS) {
    host_.log(HALO_LOG_LEVEL_ERROR,
              "queue: vkQueueSubmit of a completion probe failed: %s (%d)",
              result_name(result), static_cast<int>(result));
    return 0;
  }
  completion_value_ = value;
  completion_number_ = hand_offs_.fetch_add(1, std::memory_order_relaxed) + 1;
  return value;
}

VkResult Queue::sleep_on(uint32_t count, const VkSemaphore* semaphores,
                         const uint64_t* values, uint64_t timeout) noexcept {
  // Not sliced: the caller already chose what to sleep on, and for how long.
  VkResult result = wait_any(device_->vkd, device_->device, /*sliced=*/false,
                             count, semaphores, values, timeout);
  if (result != VK_SUCCESS && result != VK_TIMEOUT) {
    host_.log(HALO_LOG_LEVEL_ERROR, "queue: vkWaitSemaphores failed: %s (%d)",
              result_name(result), static_cast<int>(result));
  }
  return result;
}

}  // namespace halo::vk
