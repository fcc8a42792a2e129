// The opencl queue: submission, the completion worker and wait_idle.
//
// Submissions complete on the worker (when it polls them, see queue.hpp) or
// in OpenCL and timepoint callbacks, which must stay short and may run on
// the implementation's threads; releasing objects there could even destroy
// the device (and its command queues) from inside an OpenCL callback. So
// callbacks only hand finished submissions to one worker thread per device,
// which releases them.
#include "queue.hpp"

#include <algorithm>

#include "command_buffer.hpp"
#include "device.hpp"
#include "submission.hpp"

namespace halo::cl {
namespace {

// How old a run's oldest submission may grow before no newer one joins it:
// the longest its submissions land late while a chain keeps growing, as a
// newer link's end shows theirs only once asked about.
constexpr std::chrono::microseconds kLongestRunLag{50};

// Raises |value| to |at_least|.
void raise_to(std::atomic<uint64_t>& value, uint64_t at_least) noexcept {
  uint64_t seen = value.load(std::memory_order_relaxed);
  while (seen < at_least && !value.compare_exchange_weak(
                                seen, at_least, std::memory_order_relaxed)) {
  }
}

// Appends |submission| to the list from |head| to |tail|, linked through
// Submission::next_long.
void append(Submission*& head, Submission*& tail,
            Submission* submission) noexcept {
  submission->next_long = nullptr;
  if (tail != nullptr) {
    tail->next_long = submission;
  } else {
    head = submission;
  }
  tail = submission;
}

}  // namespace

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
    CommandBuffer* command_buffer =
        CommandBuffer::from(info.command_buffers[i]);
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
    submission =
        Submission::create(device, this, &returned_allocations_, *info);
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

void Queue::note_covering(uint64_t coverer, uint64_t covered) noexcept {
  // Relaxed: a worker that reads the coverer's number reads it before the
  // coverer is posted to it, so it is sure to take it.
  raise_to(covered_, covered);
  raise_to(newest_coverer_, coverer);
}

void Queue::land_run() noexcept {
  while (Submission* oldest = run_head_) {
    run_head_ = oldest->next_long;
    // It may be handed back and gone at once.
    oldest->land_covered();
  }
  run_tail_ = nullptr;
}

void Queue::end_run_unseen() noexcept {
  if (run_head_ == nullptr) return;
  // One flush (if any) for them all, as begin_long_poll makes for each
  // newcomer.
  run_tail_->begin_long_poll();
  long_head_ = run_head_;
  long_tail_ = run_tail_;
  run_head_ = run_tail_ = nullptr;
}

void Queue::take_issued(Submission* own) noexcept {
  // Polled completions land in the order the submissions were issued, so
  // that another plugin's semaphore that two of them signal sees its
  // values in order: behind older long polls, or a run it does not cover,
  // it waits its turn.
  taken_upto_ = std::max(taken_upto_, own->issue_number());
  if (run_tail_ != nullptr && !own->covers(run_tail_)) end_run_unseen();
  if (long_head_ != nullptr) {
    own->begin_long_poll();
    append(long_head_, long_tail_, own);
    return;
  }
  const bool run_may_grow =
      run_head_ == nullptr ||
      std::chrono::steady_clock::now() - run_head_->issued_at() <
          kLongestRunLag;
  switch (own->poll_completion(completion_poll_, run_may_grow)) {
    case Submission::PollEnd::kOvertaken:
      append(run_head_, run_tail_, own);
      return;
    case Submission::PollEnd::kFinished:
      if (own->completed()) {
        land_run();
        own->land_polled();
        return;
      }
      // Failed work says nothing of the run's: each is asked, and this one
      // lands after them.
      end_run_unseen();
      if (long_head_ == nullptr) {
        own->land_polled();
        return;
      }
      append(long_head_, long_tail_, own);
      return;
    case Submission::PollEnd::kOutlasted:
      end_run_unseen();
      own->begin_long_poll();
      append(long_head_, long_tail_, own);
      return;
  }
}

void Queue::process(void* queue, sdk::Submission* submission) noexcept {
  auto* own = static_cast<Submission*>(submission);
  auto* self = static_cast<Queue*>(queue);
  if (own->take_issued_hand_over()) {
    // Completes it here, or leaves it to the run or the long polls; either
    // way it comes back through post_finished once its outcome is decided.
    self->take_issued(own);
    return;
  }
  own->finish();
  self->in_flight_.retire(own);
  // Possibly the device's last reference, which destroys this queue.
  Submission::destroy(own, &self->returned_allocations_);
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

void Queue::on_idle(void* queue) noexcept {
  auto* self = static_cast<Queue*>(queue);
  self->deferred_releases_.release_all();
  self->returned_allocations_.free_all();
}

}  // namespace halo::cl
