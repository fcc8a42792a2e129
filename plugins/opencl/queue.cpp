// The opencl queue: submission, the completion worker and wait_idle.
//
// Submissions complete on the worker (when it polls them, see queue.hpp) or
// in OpenCL and timepoint callbacks, which must stay short and may run on
// the implementation's threads; releasing objects there could even destroy
// the device (and its command queues) from inside an OpenCL callback. So
// callbacks only hand finished submissions to one worker thread per device,
// which releases them.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "device.hpp"
#include "submission.hpp"

namespace halo::cl {

Queue* Queue::create(sdk::Host host, const Api* api,
                     std::chrono::microseconds completion_poll) {
  Queue* queue = host.make<Queue>(host, api, completion_poll);
  try {
    queue->worker_.start();
  } catch (...) {
    host.destroy(queue);
    throw;
  }
  return queue;
}

void Queue::destroy(Queue* queue) noexcept {
  if (queue == nullptr) return;
  queue->worker_.stop();
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
  HALO_SDK_RETURN_IF_ERROR(sdk::check_single_queue_affinity(host_, *info));
  deferred_releases_.release_all();
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
  in_flight_.track(submission);
  submission->start();
  return HALO_OK;
}

void Queue::release_event(cl_event event) noexcept {
  if (polls_completion()) {
    deferred_releases_.defer(event);
  } else if (event != nullptr) {
    api_->clReleaseEvent(event);
  }
}

void Queue::post_finished(Submission* submission) noexcept {
  worker_.post(submission);
}

void Queue::post_issued(Submission* submission) noexcept {
  worker_.post(submission);
}

void Queue::process(void* queue, sdk::Submission* submission) noexcept {
  auto* own = static_cast<Submission*>(submission);
  auto* self = static_cast<Queue*>(queue);
  if (own->take_issued_hand_over()) {
    // Completes it here, or leaves it to the long polls; either way it
    // comes back through post_finished once its outcome is decided.
    // Polled completions land in the order the submissions were issued, so
    // that another plugin's semaphore that two of them signal sees its
    // values in order: behind older long polls, it waits its turn.
    if (self->long_head_ == nullptr &&
        own->poll_completion(self->completion_poll_)) {
      own->land_polled();
      return;
    }
    own->begin_long_poll();
    own->next_long = nullptr;
    if (self->long_tail_ != nullptr) {
      self->long_tail_->next_long = own;
    } else {
      self->long_head_ = own;
    }
    self->long_tail_ = own;
    return;
  }
  own->finish();
  self->in_flight_.retire(own);
  // Possibly the device's last reference, which destroys this queue.
  Submission::destroy(own);
}

std::chrono::nanoseconds Queue::poll_long(void* queue) noexcept {
  auto* self = static_cast<Queue*>(queue);
  const auto now = std::chrono::steady_clock::now();
  // The oldest only: those behind it land after it anyway (see process).
  while (Submission* oldest = self->long_head_) {
    const std::chrono::nanoseconds due = oldest->poll_long(now);
    if (due.count() > 0) return due;
    self->long_head_ = oldest->next_long;
    if (self->long_head_ == nullptr) self->long_tail_ = nullptr;
    // It may be handed back and gone at once.
    oldest->land_polled();
  }
  return std::chrono::nanoseconds(0);
}

}  // namespace halo::cl
