// The cpu queue: submission, the worker loop, and wait_idle.
//
// A submission's waits are timepoints (on semaphores of any plugin); when
// they are all reached — or one fails — the scheduler calls on_ready, which
// only appends the submission to the worker's FIFO. The command buffers run
// and the signals are set on the worker, never inside the timepoint
// callback, so a chain of submissions each waiting on the previous one's
// signal iterates instead of recursing.
#include "queue.hpp"

#include <chrono>
#include <cstring>

#include "command_buffer.hpp"
#include "halo/sdk/intrusive_list.hpp"
#include "halo/sdk/library_pin.hpp"

namespace halo::cpu {
namespace {

// The queue whose worker runs on this thread, and whether that queue was
// destroyed under the worker's feet (see Queue).
thread_local Queue* t_worker_queue = nullptr;
thread_local bool t_worker_queue_destroyed = false;

}  // namespace

Submission::Submission(const Init& init, Queue* queue, halo_device_t* device,
                       halo_command_buffer_t** command_buffers,
                       size_t command_buffer_count) noexcept
    : PendingSubmission(init),
      queue(queue),
      device(device),
      command_buffers(command_buffers),
      command_buffer_count(command_buffer_count) {
  host().retain(sdk::as_object(device));
  for (size_t i = 0; i < command_buffer_count; ++i) {
    host().retain(sdk::as_object(command_buffers[i]));
  }
}

Submission::~Submission() {
  release_command_buffers();
  // Possibly the device's last reference: see Queue for why that is safe on
  // the worker thread.
  host().release(sdk::as_object(device));
}

void Submission::run_command_buffers(WorkerPool& pool) noexcept {
  for (size_t i = 0; i < command_buffer_count; ++i) {
    CommandBuffer::cast(command_buffers[i])->run(pool);
  }
}

void Submission::release_command_buffers() noexcept {
  for (size_t i = 0; i < command_buffer_count; ++i) {
    host().release(sdk::as_object(command_buffers[i]));
  }
  host().deallocate(command_buffers);
  command_buffers = nullptr;
  command_buffer_count = 0;
}

Queue* Queue::create(sdk::Host host, WorkerPool* pool) {
  Queue* queue = host.make<Queue>(host, pool);
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
    // We are the worker, releasing the device's last reference from inside
    // process(): joining would wait for ourselves. The loop returns at once
    // when process() does.
    queue->worker_.detach();
    t_worker_queue_destroyed = true;
  } else {
    queue->worker_.join();
  }
  sdk::Host host = queue->host_;
  host.destroy(queue);
}

halo_status_t Queue::execute(halo_device_t* device,
                             const halo_queue_execute_info_t* info) noexcept {
  if ((info->affinity & 1u) == 0) {
    return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                             "queue affinity 0x%llx selects no queue of this "
                             "device (it has queue 0 only)",
                             static_cast<unsigned long long>(info->affinity));
  }
  sdk::SemaphoreList waits{info->wait_count, info->wait_semaphores,
                           info->wait_values};
  sdk::SemaphoreList signals{info->signal_count, info->signal_semaphores,
                             info->signal_values};
  const size_t count = info->command_buffer_count;
  HALO_SDK_RETURN_IF_ERROR(
      acquire_command_buffers(host_, device, count, info->command_buffers));
  // The submission keeps its own copy of the borrowed list.
  halo_command_buffer_t** command_buffers = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    if (count > 0) {
      command_buffers = sdk::HostAllocator<halo_command_buffer_t*>(host_)
                            .allocate(count);
      std::memcpy(command_buffers, info->command_buffers,
                  count * sizeof(*command_buffers));
    }
    Submission* submission = sdk::PendingSubmission::create<Submission>(
        host_, waits, signals, this, device, command_buffers, count);
    track(submission);
    submission->start(&Queue::on_ready);
  });
  if (status != HALO_OK) {
    // Nothing was submitted: the submission was never created, so the copy
    // is still ours, and every command buffer is as it was.
    host_.deallocate(command_buffers);
    release_unsubmitted(count, info->command_buffers);
  }
  return status;
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
  // Only the oldest submission's completion can end a wait_idle.
  if (was_oldest) progress_.notify_all();
}

void Queue::on_ready(sdk::PendingSubmission* pending) noexcept {
  auto* submission = static_cast<Submission*>(pending);
  submission->queue->enqueue_ready(submission);
}

void Queue::enqueue_ready(Submission* submission) noexcept {
  // Notify under the lock: once it is released the worker may complete the
  // submission, drop the device's last reference and free this queue.
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
  // The worker may drop the plugin's last object; keep our code mapped
  // until this thread has left it.
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
  // A failed wait skips the work; complete() then fails every signal.
  if (submission->failure() == HALO_OK) {
    submission->run_command_buffers(*pool_);
  }
  submission->complete();
  // Drop the semaphores and command buffers before wait_idle may return, so
  // that after it every completed submission has let go of everything but
  // the device.
  submission->release_semaphores();
  submission->release_command_buffers();
  untrack(submission);
  sdk::PendingSubmission::destroy(submission);
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

}  // namespace halo::cpu
