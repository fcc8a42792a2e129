// The queue's way to the GPU: classifying waits as native or host-side,
// the deferred list, and handing ready submissions to vkQueueSubmit, on
// the thread that made them ready or on the notification thread.
#include <chrono>

#include "device.hpp"
#include "exit_guard.hpp"
#include "halo/sdk/intrusive_list.hpp"
#include "halo/sdk/spin.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "submission.hpp"
#include "vk_status.hpp"

namespace halo::vk {

namespace {

// How long a thread whose signal made a submission ready tries for the
// scheduling lock before it leaves the hand-off to the notification thread.
// That thread holds the lock for short stretches (a retirement, a
// vkQueueSubmit), and the hop to it costs more: on the H100, when the
// signalling thread tried the lock only once, 70 % of host-signalled
// hand-offs went through the thread (bench/README.md).
constexpr std::chrono::microseconds kHandOffLockSpin{20};

}  // namespace

uint64_t Queue::classify(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(schedule_mutex_);
  bool deferred = false;
  for (size_t i = 0; i < submission->wait_count(); ++i) {
    const sdk::Submission::Wait& wait = submission->wait(i);
    if (device_->owns(wait.semaphore) &&
        Semaphore::cast(wait.semaphore)->gpu_reaches(wait.value)) {
      submission->set_native(i);
    } else {
      deferred = true;
    }
  }
  if (deferred) {
    submission->deferred = true;
    sdk::list_push_back<&Submission::previous_deferred,
                        &Submission::next_deferred>(deferred_head_,
                                                    deferred_tail_, submission);
  }
  return hand_offs_.load(std::memory_order_relaxed);
}

bool Queue::handed_off_since(uint64_t hand_offs) noexcept {
  std::lock_guard<std::mutex> lock(schedule_mutex_);
  return hand_offs_.load(std::memory_order_relaxed) != hand_offs;
}

void Queue::unlink_deferred(Submission* submission) noexcept {
  if (!submission->deferred) return;
  submission->deferred = false;
  sdk::list_remove<&Submission::previous_deferred, &Submission::next_deferred>(
      deferred_head_, deferred_tail_, submission);
}

void Queue::process_ready(Submission* submission) noexcept {
  bool handed;
  {
    std::lock_guard<std::mutex> lock(schedule_mutex_);
    handed = try_hand_off(submission);
  }
  if (handed) return;
  // A wait failed (or the GPU refused the work): the command buffers never
  // run and every signal semaphore fails with a copy (DESIGN.md §5).
  submission->finish_waits();
  submission->fail_signals(submission->failure());
  finish(submission);
}

bool Queue::try_hand_off(Submission* submission) noexcept {
  unlink_deferred(submission);
  if (submission->failure() != HALO_OK) return false;
  halo_status_t status = hand_off(submission);
  if (status != HALO_OK) {
    submission->record_failure(status);
    return false;
  }
  // The notification thread already waits for the oldest submission's
  // end, or with none in flight for the completion semaphore's next value,
  // which this hand-off then signals (see completion_to_await); it only
  // needs a nudge to look at the deferred submissions this hand-off may
  // have made reachable. With sliced waits an idle notification thread
  // sleeps on the wake semaphore alone, so the first submission in flight
  // must wake it too.
  const bool reachable = deferred_head_ != nullptr;
  if (reachable) reevaluate_.store(true, std::memory_order_release);
  const bool first_in_flight =
      device_->adapter->sliced_waits && in_flight_head_ == submission;
  if ((reachable || first_in_flight) && !thread_.is_current_thread()) {
    device_->wake.wake();
  }
  return true;
}

void Queue::start_ready(Submission* submission) noexcept {
  // Handed to the GPU here, on the thread whose signal reached the last
  // wait, the work skips the hop to the notification thread. Only when that
  // goes well: the failure path finishes (and destroys) the submission,
  // which the callback that made it ready must not do, so that path, and
  // everything while the process exits, still goes through the thread. The
  // scheduling lock is only tried, never waited for: its holder may be
  // cancelling a timepoint of this very callback (reevaluate), and waits
  // for it to return. Tried for up to kHandOffLockSpin, after which such a
  // holder goes on.
  if (begin_driver_use()) {
    bool handed = false;
    {
      std::unique_lock<std::mutex> lock(schedule_mutex_, std::defer_lock);
      handed = sdk::spin_until(kHandOffLockSpin, std::chrono::nanoseconds(0),
                               [&] { return lock.try_lock(); }) &&
               try_hand_off(submission);
    }
    end_driver_use();
    if (handed) return;
  }
  enqueue_ready(submission);
}

halo_status_t Queue::hand_off(Submission* submission) noexcept {
  uint32_t wait_count = 0;
  for (size_t i = 0; i < submission->wait_count(); ++i) {
    const sdk::Submission::Wait& wait = submission->wait(i);
    if (!device_->owns(wait.semaphore)) continue;
    // Even a wait already reached on the host is waited on natively: it is
    // what makes the signalling work's writes visible to this submission.
    submission->vk_wait_semaphores[wait_count] =
        Semaphore::cast(wait.semaphore)->semaphore;
    submission->vk_wait_values[wait_count] = wait.value;
    submission->vk_wait_stages[wait_count] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    ++wait_count;
  }
  // What shows the GPU finished the submission. Any signal of a batch
  // follows every command before it on the queue, so a signal of its own
  // does, on a semaphore that nothing but this queue's GPU signals carries
  // past the value (unshared: the host may not signal at or past a pending
  // GPU value, and a failure stays in the shadow). That spares the GPU the
  // completion semaphore's signal, which NVIDIA's GPU takes as long again
  // as a chain link's own (bench/README.md). Only behind a submission still
  // in flight, or while the notification thread polls, though: a sleeping
  // thread sleeps on the completion semaphore alone (completion_to_await),
  // with none in flight until its next value, so the first submission in
  // flight must then signal that.
  const bool end_seen_otherwise = in_flight_head_ != nullptr || polling_;
  submission->done_semaphore = VK_NULL_HANDLE;
  uint32_t signal_count = 0;
  for (size_t i = 0; i < submission->signal_count(); ++i) {
    sdk::Submission::Signal& signal = submission->signal(i);
    signal.native =
        device_->owns(signal.semaphore) &&
        Semaphore::cast(signal.semaphore)->reserve_gpu_signal(signal.value);
    if (!signal.native) continue;
    Semaphore* semaphore = Semaphore::cast(signal.semaphore);
    submission->vk_signal_semaphores[signal_count] = semaphore->semaphore;
    submission->vk_signal_values[signal_count] = signal.value;
    ++signal_count;
    if (end_seen_otherwise && submission->done_semaphore == VK_NULL_HANDLE &&
        !semaphore->shared()) {
      submission->done_semaphore = semaphore->semaphore;
      submission->done_value = signal.value;
    }
  }
  const bool signals_completion = submission->done_semaphore == VK_NULL_HANDLE;
  if (signals_completion) {
    submission->done_semaphore = completion_;
    submission->done_value = completion_value_ + 1;
    submission->vk_signal_semaphores[signal_count] = completion_;
    submission->vk_signal_values[signal_count] = submission->done_value;
    ++signal_count;
  }
  VkTimelineSemaphoreSubmitInfo timeline = {};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.waitSemaphoreValueCount = wait_count;
  timeline.pWaitSemaphoreValues = submission->vk_wait_values;
  timeline.signalSemaphoreValueCount = signal_count;
  timeline.pSignalSemaphoreValues = submission->vk_signal_values;
  VkSubmitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &timeline;
  info.waitSemaphoreCount = wait_count;
  info.pWaitSemaphores = submission->vk_wait_semaphores;
  info.pWaitDstStageMask = submission->vk_wait_stages;
  info.commandBufferCount =
      static_cast<uint32_t>(submission->command_buffer_count());
  info.pCommandBuffers = submission->vk_command_buffers;
  info.signalSemaphoreCount = signal_count;
  info.pSignalSemaphores = submission->vk_signal_semaphores;
  VkResult result =
      device_->vkd.vkQueueSubmit(device_->vk_queue, 1, &info, VK_NULL_HANDLE);
  if (result != VK_SUCCESS) {
    for (size_t i = submission->signal_count(); i-- > 0;) {
      sdk::Submission::Signal& signal = submission->signal(i);
      if (!signal.native) continue;
      Semaphore::cast(signal.semaphore)->unreserve_gpu_signal(signal.value);
      signal.native = false;
    }
    return vk_status(host_, "vkQueueSubmit", result);
  }
  submission->number = hand_offs_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (signals_completion) {
    completion_value_ = submission->done_value;
    completion_number_ = submission->number;
  }
  // The driver may hold the native waits' VkSemaphores until a later
  // submission completes (retirement.cpp).
  for (size_t i = 0; i < submission->wait_count(); ++i) {
    const sdk::Submission::Wait& wait = submission->wait(i);
    if (!device_->owns(wait.semaphore)) continue;
    Semaphore::cast(wait.semaphore)->last_native_wait = submission->number;
  }
  submission->next_in_flight = nullptr;
  if (in_flight_tail_ != nullptr) {
    in_flight_tail_->next_in_flight = submission;
  } else {
    in_flight_head_ = submission;
  }
  in_flight_tail_ = submission;
  return HALO_OK;
}

void Queue::enqueue_ready(Submission* submission) noexcept {
  {
    std::lock_guard<std::mutex> lock(ready_mutex_);
    submission->next_ready = nullptr;
    if (ready_tail_ != nullptr) {
      ready_tail_->next_ready = submission;
    } else {
      ready_head_ = submission;
    }
    ready_tail_ = submission;
  }
  // The submission holds the device, so the wake semaphore is still there.
  device_->wake.wake();
}

void Queue::drain_ready() noexcept {
  Submission* head;
  {
    std::lock_guard<std::mutex> lock(ready_mutex_);
    head = ready_head_;
    ready_head_ = ready_tail_ = nullptr;
  }
  while (head != nullptr) {
    auto* next = static_cast<Submission*>(head->next_ready);
    process_ready(head);
    head = next;
  }
}

void Queue::reevaluate() noexcept {
  // A hand-off gave the GPU new pending signals: deferred waits on them can
  // now be waited on natively. Handing those submissions off may unlock
  // more, so repeat until nothing changes.
  for (;;) {
    Submission* ready = nullptr;
    {
      std::lock_guard<std::mutex> lock(schedule_mutex_);
      for (Submission* s = deferred_head_; s != nullptr; s = s->next_deferred) {
        for (size_t i = 0; i < s->wait_count(); ++i) {
          const sdk::Submission::Wait& wait = s->wait(i);
          if (wait.state.load(std::memory_order_acquire) !=
                  sdk::Submission::kRegistered ||
              !device_->owns(wait.semaphore) ||
              !Semaphore::cast(wait.semaphore)->gpu_reaches(wait.value)) {
            continue;
          }
          if (s->convert_to_native(i)) {
            s->next_ready = ready;
            ready = s;
          }
        }
      }
    }
    if (ready == nullptr) return;
    while (ready != nullptr) {
      auto* next = static_cast<Submission*>(ready->next_ready);
      process_ready(ready);
      ready = next;
    }
  }
}

}  // namespace halo::vk
