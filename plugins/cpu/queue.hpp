// The cpu device's queue: submissions wait for their semaphores through the
// SDK scheduler, then one worker thread per device runs their command
// buffers (dispatches on the device's worker pool) and signals (or fails)
// their signal semaphores.
#ifndef HALO_CPU_QUEUE_HPP_
#define HALO_CPU_QUEUE_HPP_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/scheduler.hpp"

namespace halo::cpu {

class Queue;
class WorkerPool;

// One queue_execute: the scheduler's pending submission plus the queue's
// bookkeeping. Holds a reference to the device until destroyed, and one to
// each command buffer until release_command_buffers.
class Submission final : public sdk::PendingSubmission {
 public:
  // Takes ownership of |command_buffers| (|command_buffer_count| handles in
  // host memory, or NULL) and retains each command buffer.
  Submission(const Init& init, Queue* queue, halo_device_t* device,
             halo_command_buffer_t** command_buffers,
             size_t command_buffer_count) noexcept;
  ~Submission() override;

  // Runs the command buffers in order, dispatches on |pool|.
  void run_command_buffers(WorkerPool& pool) noexcept;
  // Releases the command buffers early (the destructor releases whatever
  // is left).
  void release_command_buffers() noexcept;

  Queue* const queue;
  halo_device_t* const device;
  halo_command_buffer_t** command_buffers;
  size_t command_buffer_count;
  // Order of submission, for wait_idle.
  uint64_t sequence = 0;
  // The worker's FIFO of ready submissions (guarded by the queue's mutex).
  Submission* next_ready = nullptr;
  // The queue's list of submissions not yet completed, oldest first.
  Submission* previous_in_flight = nullptr;
  Submission* next_in_flight = nullptr;
};

// A submission queue drained by one worker thread.
//
// Lifetime: a Queue belongs to its device and is destroyed by the device's
// destroy. Since every submission retains the device, the device (and so
// the queue) can only die when no submission exists — but its last reference
// may be dropped by the worker itself, while it destroys the last submission.
// Then destroy runs on the worker: it detaches the thread instead of joining
// it, frees the queue, and tells the worker loop (through a thread-local
// flag) to return without touching the queue again.
class Queue {
 public:
  // Starts the worker thread; dispatches run on |pool| (borrowed; it must
  // outlive the queue). Throws std::bad_alloc or std::system_error.
  static Queue* create(sdk::Host host, WorkerPool* pool);
  // Stops the worker (joining it, or detaching it when called on the worker)
  // and frees the queue. No submission may exist.
  static void destroy(Queue* queue) noexcept;

  // Submits |info| for |device| (borrowed; retained by the submission) and
  // returns without blocking. Returns INVALID_ARGUMENT for an affinity
  // without queue 0 or a command buffer of another device or plugin,
  // FAILED_PRECONDITION for a command buffer that has not ended or is a
  // ONE_SHOT one submitted before, RESOURCE_EXHAUSTED when memory runs out;
  // a failed submit leaves every command buffer as it was. Thread-safe.
  halo_status_t execute(halo_device_t* device,
                        const halo_queue_execute_info_t* info) noexcept;

  // Blocks until every submission made before the call has completed and
  // dropped its semaphores (OK) or |deadline| passes (DEADLINE_EXCEEDED).
  // Must not be called from the worker thread (a timepoint callback).
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept;

  // Use create; public only so that the host allocator can construct it.
  Queue(sdk::Host host, WorkerPool* pool) noexcept
      : host_(host), pool_(pool) {}

 private:
  static void on_ready(sdk::PendingSubmission* submission) noexcept;
  void enqueue_ready(Submission* submission) noexcept;
  void run() noexcept;
  void process(Submission* submission) noexcept;
  void track(Submission* submission) noexcept;
  void untrack(Submission* submission) noexcept;

  sdk::Host host_;
  WorkerPool* const pool_;
  std::mutex mutex_;
  // Wakes the worker: a submission became ready, or the queue stops.
  std::condition_variable work_ready_;
  // Wakes wait_idle: the oldest in-flight submission completed.
  std::condition_variable progress_;
  Submission* ready_head_ = nullptr;
  Submission* ready_tail_ = nullptr;
  Submission* in_flight_head_ = nullptr;
  Submission* in_flight_tail_ = nullptr;
  uint64_t next_sequence_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace halo::cpu

#endif  // HALO_CPU_QUEUE_HPP_
