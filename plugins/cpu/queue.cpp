// The cpu queue: submission and the worker's processing.
//
// A submission's waits are timepoints (on semaphores of any plugin); when
// they are all reached, or one fails, on_ready only posts the submission to
// the worker. The command buffers run and the signals are set on the
// worker, never inside the timepoint callback, so a chain of submissions
// each waiting on the previous one's signal iterates instead of recursing.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "halo/sdk/host_semaphore.hpp"

namespace halo::cpu {

void Submission::run_command_buffers(WorkerPool& pool) noexcept {
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    CommandBuffer::cast(command_buffer(i))->run(pool);
  }
}

Queue* Queue::create(sdk::Host host, WorkerPool* pool) {
  Queue* queue = host.make<Queue>(host, pool);
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

halo_status_t Queue::execute(halo_device_t* device,
                             const halo_queue_execute_info_t* info) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_single_queue_affinity(host_, *info));
  const size_t count = info->command_buffer_count;
  HALO_SDK_RETURN_IF_ERROR(
      acquire_command_buffers(host_, device, count, info->command_buffers));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    submission = sdk::Submission::create<Submission>(
        host_, &returned_allocations_, device, sdk::SubmissionLists::of(*info),
        this);
  });
  if (status != HALO_OK) {
    // Nothing was submitted: every command buffer is as it was.
    release_unsubmitted(count, info->command_buffers);
    return status;
  }
  in_flight_.track(submission);
  if (submission->register_waits(&Queue::on_ready)) on_ready(submission);
  return HALO_OK;
}

void Queue::on_ready(sdk::Submission* submission) noexcept {
  if (submission->failure() == HALO_OK) sdk::commit_queue_signals(*submission);
  auto* own = static_cast<Submission*>(submission);
  own->queue->worker_.post(own);
}

void Queue::process(void* queue_pointer, sdk::Submission* base) noexcept {
  auto* queue = static_cast<Queue*>(queue_pointer);
  auto* submission = static_cast<Submission*>(base);
  // A failed wait skips the work; complete() then fails every signal.
  if (submission->failure() == HALO_OK) {
    submission->run_command_buffers(*queue->pool_);
  }
  submission->complete();
  queue->in_flight_.retire(submission);
  // Possibly the device's last reference, which destroys this queue.
  sdk::Submission::destroy(submission, &queue->returned_allocations_);
}

void Queue::on_idle(void* queue) noexcept {
  static_cast<Queue*>(queue)->returned_allocations_.free_all();
}

}  // namespace halo::cpu
