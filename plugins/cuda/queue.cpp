// The cuda queue: submission, issue, the completion worker and wait_idle.
//
// Submissions become ready on the caller's thread or in timepoint
// callbacks (of any plugin); either issues the work on the stream at once,
// since CUDA's asynchronous calls do not wait for the device. Completion is
// observed by one worker thread per device, in issue order, with no event
// and no callback per submission: the stream runs in order, so an event
// the worker records at the stream's tail, once complete, says that every
// submission issued before it is done. The worker polls such an event for
// a short while (short work is done within microseconds, sooner than a
// blocking wait wakes up), then sleeps on a blocking-sync one. A run of
// submissions is retired with one event; semaphores' signals land in the
// order the stream ran the work.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "cuda_status.hpp"
#include "device.hpp"
#include "device_wait.hpp"
#include "halo/sdk/spin.hpp"
#include "submission.hpp"

namespace halo::cuda {
namespace {

// How long the worker keeps looking for the next submission before it
// sleeps: submitters of a busy queue then hand over without a futex
// wake-up each (a few microseconds of the submitting thread's time).
constexpr std::chrono::microseconds kWorkerIdleSpin{50};
// How long the worker polls the stream's progress before it sleeps, and how
// often: a query takes the driver's locks, which submitting threads need.
constexpr std::chrono::microseconds kPollFor{50};
constexpr std::chrono::microseconds kPollInterval{1};

}  // namespace

Queue::Queue(Device* device) noexcept
    : host_(device->host),
      device_(device),
      returned_allocations_(device->host),
      worker_(&Queue::process, this, kWorkerIdleSpin, /*poll=*/nullptr,
              &Queue::on_idle) {}

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
  if (queue->poll_event_ != nullptr || queue->sleep_event_ != nullptr) {
    const Api& api = *queue->device_->api;
    ContextScope scope(api, queue->device_->context);
    if (queue->poll_event_ != nullptr) api.cuEventDestroy(queue->poll_event_);
    if (queue->sleep_event_ != nullptr) api.cuEventDestroy(queue->sleep_event_);
  }
  sdk::Host host = queue->host_;
  host.destroy(queue);
}

halo_status_t Queue::acquire_command_buffers(
    Device* device, const halo_queue_execute_info_t& info) noexcept {
  for (size_t i = 0; i < info.command_buffer_count; ++i) {
    CommandBuffer* command_buffer =
        CommandBuffer::from(info.command_buffers[i]);
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
  for (size_t i = 0; i < info.signal_count; ++i) {
    if (DeviceWaitSemaphore::from(info.signal_semaphores[i]) != nullptr) {
      return host_.make_status(HALO_STATUS_FAILED_PRECONDITION,
                               "halo_device_queue_execute: "
                               "info->signal_semaphores[%zu] was imported for "
                               "device waits only",
                               i);
    }
  }
  HALO_SDK_RETURN_IF_ERROR(acquire_command_buffers(device, info));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    submission = Submission::create(device, &returned_allocations_, info);
  });
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
    ContextScope scope(*device_->api, device_->context);
    submission->issue();
    // Even a failed issue may have left work on the stream, which uses
    // what the submission holds: the worker waits for it all the same.
    submission->issue_sequence = ++issued_count_;
  }
  worker_.post(submission);
}

void Queue::process(void* queue, sdk::Submission* submission) noexcept {
  auto* self = static_cast<Queue*>(queue);
  auto* own = static_cast<Submission*>(submission);
  halo_status_t status = self->await_stream(own->issue_sequence);
  own->check_work(status);
  self->host_.free(status);
  own->complete();
  self->in_flight_.retire(own);
  // Possibly the device's last reference, which destroys this queue.
  Submission::destroy(own, &self->returned_allocations_);
}

uint64_t Queue::mark_tail(CUevent event, halo_status_t* status) noexcept {
  std::lock_guard<std::mutex> lock(issue_mutex_);
  *status = cuda_status(host_, *device_->api, "cuEventRecord",
                        device_->api->cuEventRecord(event, device_->stream));
  return *status == HALO_OK ? issued_count_ : 0;
}

halo_status_t Queue::await_stream(uint64_t sequence) noexcept {
  if (sequence <= done_through_) return HALO_OK;  // Nothing issued, or done.
  const Api& api = *device_->api;
  ContextScope scope(api, device_->context);
  bool work_failed = false;
  halo_status_t status = await_tail_event(&work_failed);
  if (status == HALO_OK || work_failed) return status;
  // The event itself could not be made or recorded, so nothing says the
  // work is done, and the caller is about to release what it uses: wait for
  // the whole stream instead. A stream that cannot be synchronised either
  // has a lost context, on which no work runs any more.
  host_.free(status);
  uint64_t through = 0;
  {
    std::lock_guard<std::mutex> lock(issue_mutex_);
    through = issued_count_;
  }
  HALO_CUDA_RETURN_IF_ERROR(host_, api, "cuStreamSynchronize",
                            api.cuStreamSynchronize(device_->stream));
  done_through_ = through;
  return HALO_OK;
}

halo_status_t Queue::await_tail_event(bool* work_failed) noexcept {
  const Api& api = *device_->api;
  if (poll_event_ == nullptr) {
    HALO_CUDA_RETURN_IF_ERROR(
        host_, api, "cuEventCreate",
        api.cuEventCreate(&poll_event_, CU_EVENT_DISABLE_TIMING));
  }
  if (sleep_event_ == nullptr) {
    HALO_CUDA_RETURN_IF_ERROR(
        host_, api, "cuEventCreate",
        api.cuEventCreate(&sleep_event_,
                          CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING));
  }
  halo_status_t status = HALO_OK;
  uint64_t through = mark_tail(poll_event_, &status);
  HALO_SDK_RETURN_IF_ERROR(status);
  CUresult result = CUDA_ERROR_NOT_READY;
  sdk::spin_until(kPollFor, kPollInterval, [&] {
    result = api.cuEventQuery(poll_event_);
    return result != CUDA_ERROR_NOT_READY;
  });
  const char* call = "cuEventQuery";
  if (result == CUDA_ERROR_NOT_READY) {
    // Long work: sleep rather than spin a core. Recorded later, this event
    // covers at least as much.
    through = mark_tail(sleep_event_, &status);
    HALO_SDK_RETURN_IF_ERROR(status);
    result = api.cuEventSynchronize(sleep_event_);
    call = "cuEventSynchronize";
  }
  // A recorded event that reports an error reports the stream's work.
  *work_failed = result != CUDA_SUCCESS;
  HALO_CUDA_RETURN_IF_ERROR(host_, api, call, result);
  done_through_ = through;
  return HALO_OK;
}

void Queue::on_idle(void* queue) noexcept {
  static_cast<Queue*>(queue)->returned_allocations_.free_all();
}

}  // namespace halo::cuda
