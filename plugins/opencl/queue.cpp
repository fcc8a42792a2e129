// The opencl queue: submission, the completion worker and wait_idle.
//
// Submissions complete in OpenCL and timepoint callbacks, which must stay
// short and may run on the implementation's threads; releasing objects there
// could even destroy the device (and its command queues) from inside an
// OpenCL callback. So callbacks only hand finished submissions to one worker
// thread per device, which releases them.
#include "queue.hpp"

#include <chrono>

#include "command_buffer.hpp"
#include "device.hpp"
#include "halo/sdk/intrusive_list.hpp"
#include "halo/sdk/library_pin.hpp"
#include "submission.hpp"

namespace halo::cl {
namespace {

// The queue whose worker runs on this thread, and whether that queue was
// destroyed under the worker's feet (see Queue).
thread_local Queue* t_worker_queue = nullptr;
thread_local bool t_worker_queue_destroyed = false;

}  // namespace

Queue* Queue::create(sdk::Host host) {
  Queue* queue = host.make<Queue>(host);
  try {
    queue->worker_ = std::thread([queue] { queue->run(); });
  } catch (...) {
    host.destroy(queue);
    throw;
  }
  return queue;
}

void Queue::destroy(Queue* queue) noexcept {
  if (queue == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(queue->mutex_);
    queue->stopping_ = true;
    queue->work_ready_.notify_all();
  }
  if (t_worker_queue == queue) {
    // The worker itself, dropping the device's last reference from inside
    // process(): joining would wait for ourselves.
    queue->worker_.detach();
    t_worker_queue_destroyed = true;
  } else {
    queue->worker_.join();
  }
  sdk::Host host = queue->host_;
  host.destroy(queue);
}

halo_status_t Queue::acquire_command_buffers(
    Device* device, const halo_queue_execute_info_t& info) noexcept {
  for (size_t i = 0; i < info.command_buffer_count; ++i) {
    CommandBuffer* command_buffer = CommandBuffer::from(info.command_buffers[i]);
    halo_status_t status = HALO_OK;
    if (command_buffer == nullptr) {
      status = host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_device_queue_execute: "
                                 "info->command_buffers[%zu] is not an "
                                 "opencl command buffer",
                                 i);
    } else if (command_buffer->device->context() != device->context()) {
      status = host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_device_queue_execute: "
                                 "info->command_buffers[%zu] belongs to "
                                 "another OpenCL device",
                                 i);
    } else {
      status = command_buffer->recording.acquire_for_submit(host_, i);
    }
    if (status != HALO_OK) {
      release_command_buffers(info, i);
      return status;
    }
  }
  return HALO_OK;
}

void Queue::release_command_buffers(const halo_queue_execute_info_t& info,
                                    size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    CommandBuffer::cast(info.command_buffers[i])
        ->recording.release_unsubmitted();
  }
}

halo_status_t Queue::execute(Device* device,
                             const halo_queue_execute_info_t* info) noexcept {
  if ((info->affinity & 1u) == 0) {
    return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                             "halo_device_queue_execute: affinity 0x%llx "
                             "selects no queue of this device (it has queue "
                             "0 only)",
                             static_cast<unsigned long long>(info->affinity));
  }
  HALO_SDK_RETURN_IF_ERROR(acquire_command_buffers(device, *info));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    submission = Submission::create(device, this, *info);
  });
  if (status == HALO_OK) status = submission->prepare();
  if (status != HALO_OK) {
    if (submission != nullptr) submission->abandon();
    Submission::destroy(submission);
    release_command_buffers(*info, info->command_buffer_count);
    return status;
  }
  track(submission);
  submission->start();
  return HALO_OK;
}

void Queue::track(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  submission->sequence = next_sequence_++;
  sdk::list_push_back<&Submission::previous_in_flight, &Submission::next_in_flight>(
      in_flight_head_, in_flight_tail_, submission);
}

void Queue::untrack(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool was_oldest =
      sdk::list_remove<&Submission::previous_in_flight, &Submission::next_in_flight>(
          in_flight_head_, in_flight_tail_, submission);
  // Only the oldest submission's release can end a wait_idle.
  if (was_oldest) progress_.notify_all();
}

void Queue::post_finished(Submission* submission) noexcept {
  // Notify under the lock: once it is released the worker may release the
  // device's last reference and free this queue.
  std::lock_guard<std::mutex> lock(mutex_);
  submission->next_ready = nullptr;
  if (ready_tail_ != nullptr) {
    ready_tail_->next_ready = submission;
  } else {
    ready_head_ = submission;
  }
  ready_tail_ = submission;
  work_ready_.notify_one();
}

void Queue::run() noexcept {
  t_worker_queue = this;
  // The worker may drop the plugin's last object; keep the plugin's code
  // mapped until this thread has left it.
  sdk::pin_library_to_current_thread();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (Submission* submission = ready_head_) {
      ready_head_ = submission->next_ready;
      if (ready_head_ == nullptr) ready_tail_ = nullptr;
      lock.unlock();
      process(submission);
      // The queue may be gone now (see Queue); touch nothing of it.
      if (t_worker_queue_destroyed) return;
      lock.lock();
      continue;
    }
    if (stopping_) return;
    work_ready_.wait(lock);
  }
}

void Queue::process(Submission* submission) noexcept {
  // Release everything but the device before wait_idle may return.
  submission->finish();
  untrack(submission);
  Submission::destroy(submission);
}

halo_status_t Queue::wait_idle(halo_time_ns_t deadline) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = next_sequence_;
  auto idle = [&] {
    return in_flight_head_ == nullptr || in_flight_head_->sequence >= target;
  };
  if (idle()) return HALO_OK;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) {
    return host_.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE) {
    progress_.wait(lock, idle);
    return HALO_OK;
  }
  // libstdc++'s steady_clock is CLOCK_MONOTONIC, the clock of deadlines.
  auto until = std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(deadline));
  if (progress_.wait_until(lock, until, idle)) return HALO_OK;
  return host_.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

}  // namespace halo::cl
