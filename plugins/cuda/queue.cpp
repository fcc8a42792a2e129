// The cuda queue: submission, issue, the completion worker and wait_idle.
//
// Submissions become ready on the caller's thread or in timepoint
// callbacks (of any plugin); either issues the work on the stream at once,
// since CUDA's asynchronous calls do not wait for the device. Completion is
// observed by one worker thread per device, which synchronises on each
// submission's event in issue order: no callback per submission, and the
// semaphores' signals land in the order the stream ran the work.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "cuda_status.hpp"
#include "device.hpp"
#include "submission.hpp"

namespace halo::cuda {

Queue::Queue(Device* device) noexcept
    : host_(device->host),
      device_(device),
      free_events_(sdk::HostAllocator<CUevent>(device->host)),
      worker_(&Queue::process, this) {}

Queue* Queue::create(Device* device) {
  Queue* queue = device->host.make<Queue>(device);
  try {
    queue->worker_.start();
  } catch (...) {
    device->host.destroy(queue);
    throw;
  }
  return queue;
}

void Queue::destroy(Queue* queue) noexcept {
  if (queue == nullptr) return;
  queue->worker_.stop();
  if (!queue->free_events_.empty()) {
    const Api& api = *queue->device_->api;
    ContextScope scope(api, queue->device_->context);
    for (CUevent event : queue->free_events_) api.cuEventDestroy(event);
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
                                 "info->command_buffers[%zu] is not a cuda "
                                 "command buffer",
                                 i);
    } else if (command_buffer->device->context != device->context) {
      status = host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_device_queue_execute: "
                                 "info->command_buffers[%zu] belongs to "
                                 "another CUDA device",
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
                             const halo_queue_execute_info_t& info) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_single_queue_affinity(host_, info));
  HALO_SDK_RETURN_IF_ERROR(acquire_command_buffers(device, info));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(
      host_, [&] { submission = Submission::create(device, info); });
  if (status != HALO_OK) {
    release_command_buffers(info, info.command_buffer_count);
    return status;
  }
  submission->resolve_waits();
  in_flight_.track(submission);
  // When it is not ready at once, a timepoint callback starts it, and it
  // may be gone right after: touch nothing more.
  if (submission->register_waits(&Queue::on_ready)) start(submission);
  return HALO_OK;
}

void Queue::on_ready(sdk::Submission* submission) noexcept {
  auto* own = static_cast<Submission*>(submission);
  Device* device = Device::cast(own->device());
  device->queue->start(own);
}

void Queue::start(Submission* submission) noexcept {
  std::lock_guard<std::mutex> lock(issue_mutex_);
  if (submission->failure() == HALO_OK) {
    const Api& api = *device_->api;
    ContextScope scope(api, device_->context);
    CUevent event = take_event();
    if (event == nullptr) {
      submission->record_failure(host_.make_status_text(
          HALO_STATUS_RESOURCE_EXHAUSTED,
          "halo_device_queue_execute: cuEventCreate failed for a "
          "completion event"));
    } else {
      submission->event = event;
      submission->issue();
      if (submission->event == nullptr) give_event(event);
    }
  }
  worker_.post(submission);
}

void Queue::process(void* queue, sdk::Submission* submission) noexcept {
  auto* self = static_cast<Queue*>(queue);
  auto* own = static_cast<Submission*>(submission);
  own->await_work();
  if (own->event != nullptr) {
    self->give_event(own->event);
    own->event = nullptr;
  }
  own->complete();
  // Release everything but the device before wait_idle may return.
  own->release_resources();
  self->in_flight_.untrack(own);
  // Possibly the device's last reference, which destroys this queue.
  Submission::destroy(own);
}

CUevent Queue::take_event() noexcept {
  {
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (!free_events_.empty()) {
      CUevent event = free_events_.back();
      free_events_.pop_back();
      return event;
    }
  }
  // Blocking sync: the worker sleeps until the device is done rather than
  // spin a core.
  CUevent event = nullptr;
  if (device_->api->cuEventCreate(
          &event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING) !=
      CUDA_SUCCESS) {
    return nullptr;
  }
  return event;
}

void Queue::give_event(CUevent event) noexcept {
  {
    std::lock_guard<std::mutex> lock(events_mutex_);
    try {
      free_events_.push_back(event);
      return;
    } catch (...) {
      // No room to keep it: destroy it below.
    }
  }
  ContextScope scope(*device_->api, device_->context);
  device_->api->cuEventDestroy(event);
}

}  // namespace halo::cuda
