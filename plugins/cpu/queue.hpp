// The cpu device's queue: submissions wait for their semaphores through the
// SDK's submission core, then the queue's completion worker runs their
// command buffers (dispatches on the device's worker pool) and signals (or
// fails) their signal semaphores.
#ifndef HALO_CPU_QUEUE_HPP_
#define HALO_CPU_QUEUE_HPP_

#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/returned_allocations.hpp"
#include "halo/sdk/submission.hpp"

namespace halo::cpu {

class Queue;
class WorkerPool;

// One queue_execute: the SDK's submission plus the queue it belongs to.
class Submission final : public sdk::Submission {
 public:
  Submission(const Init& init, Queue* queue) noexcept
      : sdk::Submission(init), queue(queue) {}

  // Runs the command buffers in order, dispatches on |pool|.
  void run_command_buffers(WorkerPool& pool) noexcept;

  Queue* const queue;
};

// A submission queue drained by one worker thread. It belongs to its
// device; see sdk::CompletionWorker for how the device's last reference
// may go on the worker.
class Queue {
 public:
  // Starts the worker thread; dispatches run on |pool| (borrowed; it must
  // outlive the queue). Throws std::bad_alloc or std::system_error.
  static Queue* create(sdk::Host host, WorkerPool* pool);
  // Stops the worker and frees the queue. No submission may exist.
  static void destroy(Queue* queue) noexcept;

  // Submits |info| for |device| (borrowed; retained by the submission) and
  // returns without blocking. Returns INVALID_ARGUMENT for an affinity
  // without queue 0 or a command buffer of another device or plugin,
  // FAILED_PRECONDITION for a command buffer that has not ended or is a
  // ONE_SHOT one submitted before, RESOURCE_EXHAUSTED when memory runs
  // out; a failed submit leaves every command buffer as it was. Thread-safe.
  halo_status_t execute(halo_device_t* device,
                        const halo_queue_execute_info_t* info) noexcept;

  // Blocks until every submission made before the call has completed and
  // dropped its semaphores (OK) or |deadline| passes (DEADLINE_EXCEEDED).
  // Must not be called from the worker thread (a timepoint callback).
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept {
    return in_flight_.wait_idle(host_, deadline);
  }

  // Use create; public only so that the host allocator can construct it.
  Queue(sdk::Host host, WorkerPool* pool) noexcept
      : host_(host),
        pool_(pool),
        returned_allocations_(host),
        worker_(&Queue::process, this, std::chrono::nanoseconds(0),
                /*poll=*/nullptr, &Queue::on_idle) {}

 private:
  static void on_ready(sdk::Submission* submission) noexcept;
  static void process(void* queue, sdk::Submission* submission) noexcept;
  static void on_idle(void* queue) noexcept;

  sdk::Host host_;
  WorkerPool* const pool_;
  sdk::InFlightTracker in_flight_;
  // Finished submissions' memory, reused by the next submissions or freed
  // by the idle worker; before the worker, so destroyed after it has
  // stopped.
  sdk::ReturnedAllocations returned_allocations_;
  sdk::CompletionWorker worker_;
};

}  // namespace halo::cpu

#endif  // HALO_CPU_QUEUE_HPP_
