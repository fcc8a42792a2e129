// The queue's submission side: checks, classification, hand-off to the GPU,
// completion and wait_idle.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "device.hpp"
#include "exit_guard.hpp"
#include "halo/sdk/intrusive_list.hpp"
#include "halo/sdk/queue_signal.hpp"
#include "semaphore.hpp"
#include "submission.hpp"
#include "vk_status.hpp"
#include "wake.hpp"

namespace halo::vk {

using ull = unsigned long long;

// The notification thread's queue, and whether it was destroyed under it.
thread_local Queue* t_notifier_queue = nullptr;
thread_local bool t_notifier_queue_destroyed = false;

namespace {

constexpr char kExecute[] = "halo_device_queue_execute";

}  // namespace

Queue::Queue(Device* device) noexcept
    : device_(device),
      host_(device->host),
      watched_(sdk::HostAllocator<Semaphore*>(device->host)),
      watch_snapshot_(sdk::HostAllocator<Semaphore*>(device->host)),
      wait_semaphores_(sdk::HostAllocator<VkSemaphore>(device->host)),
      wait_values_(sdk::HostAllocator<uint64_t>(device->host)) {}

Queue::~Queue() {
  if (completion_ != VK_NULL_HANDLE) {
    device_->vkd.vkDestroySemaphore(device_->device, completion_, nullptr);
  }
}

Queue* Queue::create(Device* device, halo_status_t* out_status) {
  *out_status = HALO_OK;
  Queue* queue = device->host.make<Queue>(device);
  *out_status = create_timeline_semaphore(device->host, device->vkd,
                                          device->device, 0,
                                          &queue->completion_);
  if (*out_status != HALO_OK) {
    device->host.destroy(queue);
    return nullptr;
  }
  try {
    queue->thread_ = std::thread([queue] { queue->run(); });
  } catch (...) {
    device->host.destroy(queue);
    throw;
  }
  device->semaphore_keeper = queue;
  return queue;
}

void Queue::destroy(Queue* queue) noexcept {
  if (queue == nullptr) return;
  queue->stopping_.store(true, std::memory_order_seq_cst);
  queue->device_->wake.wake();
  unpark_exit_parked();
  if (t_notifier_queue == queue) {
    // The notification thread itself dropped the device's last reference;
    // its loop returns as soon as this does, touching nothing of ours.
    queue->thread_.detach();
    t_notifier_queue_destroyed = true;
  } else {
    queue->thread_.join();
  }
  // The driver may still be letting go of the last submissions' waits
  // (retirement.cpp): only an idle VkQueue proves it has, and then the
  // semaphores kept for it may go.
  Device* device = queue->device_;
  device->vkd.vkQueueWaitIdle(device->vk_queue);
  queue->destroy_retired(UINT64_MAX);
  sdk::Host host = queue->host_;
  host.destroy(queue);
}

halo_status_t Queue::check_values(
    const halo_queue_execute_info_t& info) noexcept {
  const uint64_t limit =
      device_->adapter->capabilities.max_semaphore_value_difference;
  auto check = [&](halo_semaphore_t* handle, uint64_t value, const char* list,
                   size_t index) -> halo_status_t {
    if (!device_->owns(handle)) return HALO_OK;
    uint64_t native = 0;
    HALO_SDK_RETURN_IF_ERROR(Semaphore::cast(handle)->native_value(&native));
    if (value <= native || value - native <= limit) return HALO_OK;
    return host_.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: info->%s_values[%zu] %llu is more than the device's "
        "max_semaphore_value_difference %llu above the payload %llu",
        kExecute, list, index, static_cast<ull>(value), static_cast<ull>(limit),
        static_cast<ull>(native));
  };
  for (size_t i = 0; i < info.wait_count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(
        check(info.wait_semaphores[i], info.wait_values[i], "wait", i));
  }
  for (size_t i = 0; i < info.signal_count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(
        check(info.signal_semaphores[i], info.signal_values[i], "signal", i));
  }
  return HALO_OK;
}

halo_status_t Queue::acquire_command_buffers(
    const halo_queue_execute_info_t& info) noexcept {
  for (size_t i = 0; i < info.command_buffer_count; ++i) {
    CommandBuffer* buffer = CommandBuffer::from(info.command_buffers[i]);
    if (buffer == nullptr || buffer->device() != device_) {
      release_unsubmitted(info, i);
      return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                               "%s: info->command_buffers[%zu] is not a "
                               "command buffer of this device",
                               kExecute, i);
    }
    halo_status_t status = buffer->acquire_for_submit(i);
    if (status != HALO_OK) {
      release_unsubmitted(info, i);
      return status;
    }
  }
  return HALO_OK;
}

void Queue::release_unsubmitted(const halo_queue_execute_info_t& info,
                                size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    CommandBuffer::from(info.command_buffers[i])->release_unsubmitted();
  }
}

halo_status_t Queue::execute(const halo_queue_execute_info_t* info) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_single_queue_affinity(host_, *info));
  HALO_SDK_RETURN_IF_ERROR(check_values(*info));
  HALO_SDK_RETURN_IF_ERROR(acquire_command_buffers(*info));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    submission = Submission::create(device_, *info);
  });
  if (status != HALO_OK) {
    release_unsubmitted(*info, info->command_buffer_count);
    return status;
  }
  in_flight_.track(submission);
  classify(submission);
  if (submission->register_waits(&Submission::on_ready)) {
    process_ready(submission);
  } else {
    // A wait registered meanwhile may already be reachable on the GPU.
    reevaluate_.store(true, std::memory_order_release);
    device_->wake.wake();
  }
  return HALO_OK;
}

void Queue::classify(Submission* submission) noexcept {
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
  if (!deferred) return;
  submission->deferred = true;
  sdk::list_push_back<&Submission::previous_deferred, &Submission::next_deferred>(
      deferred_head_, deferred_tail_, submission);
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
  // The notification thread already waits for the next completion number
  // (see sleep); it only needs a nudge to look at the deferred submissions
  // this hand-off may have made reachable. With sliced waits an idle
  // notification thread sleeps on the wake semaphore alone, so the first
  // submission in flight must wake it too.
  const bool reachable = deferred_head_ != nullptr;
  if (reachable) reevaluate_.store(true, std::memory_order_release);
  const bool first_in_flight =
      device_->adapter->sliced_waits && in_flight_head_ == submission;
  if ((reachable || first_in_flight) && t_notifier_queue != this) {
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
  // scheduling lock is only tried: its holder may be cancelling a timepoint
  // of this very callback (reevaluate), and waits for it to return.
  if (begin_driver_use()) {
    bool handed = false;
    {
      std::unique_lock<std::mutex> lock(schedule_mutex_, std::try_to_lock);
      handed = lock.owns_lock() && try_hand_off(submission);
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
  uint32_t signal_count = 0;
  for (size_t i = 0; i < submission->signal_count(); ++i) {
    sdk::Submission::Signal& signal = submission->signal(i);
    signal.native = device_->owns(signal.semaphore) &&
                    Semaphore::cast(signal.semaphore)
                        ->reserve_gpu_signal(signal.value);
    if (!signal.native) continue;
    Semaphore* semaphore = Semaphore::cast(signal.semaphore);
    submission->vk_signal_semaphores[signal_count] = semaphore->semaphore;
    submission->vk_signal_values[signal_count] = signal.value;
    ++signal_count;
  }
  const uint64_t completion = next_completion_ + 1;
  submission->vk_signal_semaphores[signal_count] = completion_;
  submission->vk_signal_values[signal_count] = completion;
  ++signal_count;
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
  VkResult result = device_->vkd.vkQueueSubmit(device_->vk_queue, 1, &info,
                                               VK_NULL_HANDLE);
  if (result != VK_SUCCESS) {
    for (size_t i = submission->signal_count(); i-- > 0;) {
      sdk::Submission::Signal& signal = submission->signal(i);
      if (!signal.native) continue;
      Semaphore::cast(signal.semaphore)->unreserve_gpu_signal(signal.value);
      signal.native = false;
    }
    return vk_status(host_, "vkQueueSubmit", result);
  }
  next_completion_ = completion;
  submission->completion_value = completion;
  // The driver may hold the native waits' VkSemaphores until a later
  // submission completes (retirement.cpp).
  for (size_t i = 0; i < submission->wait_count(); ++i) {
    const sdk::Submission::Wait& wait = submission->wait(i);
    if (!device_->owns(wait.semaphore)) continue;
    Semaphore::cast(wait.semaphore)->last_native_wait = completion;
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
  finish(submission);
}

void Queue::finish(Submission* submission) noexcept {
  // Let go of the semaphores and command buffers before wait_idle can
  // return, so that afterwards only the device is still held.
  submission->release_resources();
  in_flight_.untrack(submission);
  if (t_notifier_queue == this) {
    // The device reference goes in the release pass (see notifier.cpp).
    submission->next_finished = finished_head_;
    finished_head_ = submission;
  } else {
    Submission::destroy(submission);  // The caller holds the device too.
  }
}

}  // namespace halo::vk
