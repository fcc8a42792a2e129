// The cuda device's submission queue: queue_execute, issuing ready work on
// the device's stream, the completion worker that retires it, and
// wait_idle.
#ifndef HALO_CUDA_QUEUE_HPP_
#define HALO_CUDA_QUEUE_HPP_

#include <cstdint>
#include <mutex>

#include "cuda_library.hpp"
#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/returned_allocations.hpp"

namespace halo::cuda {

struct Device;
class Submission;

// A Queue belongs to its device and is destroyed by the device's destroy;
// see sdk::CompletionWorker for how the device's last reference may go on
// the worker.
class Queue {
 public:
  // Starts the worker thread. Throws std::bad_alloc or std::system_error.
  static Queue* create(Device* device);
  // Stops the worker (waiting for it to end, unless called on it),
  // destroys the worker's events and frees the queue. No submission may
  // exist.
  static void destroy(Queue* queue) noexcept;

  // Submits |info| and returns without blocking on the device. Returns
  // INVALID_ARGUMENT for an affinity without queue 0 or a command buffer of
  // another plugin or device, FAILED_PRECONDITION for a command buffer not
  // ended (or a ONE_SHOT one submitted again), RESOURCE_EXHAUSTED when
  // memory runs out. Thread-safe.
  halo_status_t execute(Device* device,
                        const halo_queue_execute_info_t& info) noexcept;

  // Blocks until every submission made before the call has completed and
  // released what it held (OK), or |deadline| passes (DEADLINE_EXCEEDED).
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept {
    return in_flight_.wait_idle(host_, deadline);
  }

  // Use create; public only so that the host allocator can construct it.
  explicit Queue(Device* device) noexcept;

 private:
  halo_status_t acquire_command_buffers(
      Device* device, const halo_queue_execute_info_t& info) noexcept;
  void release_command_buffers(const halo_queue_execute_info_t& info,
                               size_t count) noexcept;
  // Issues a ready submission's work (unless a wait failed) and hands it to
  // the worker, in one step under issue_mutex_ so that the worker sees
  // submissions in stream order. Never blocks on the device's progress.
  void start(Submission* submission) noexcept;
  static void on_ready(sdk::Submission* submission) noexcept;
  static void process(void* queue, sdk::Submission* submission) noexcept;
  static void on_idle(void* queue) noexcept;

  // On the worker: blocks until the stream has run every submission up to
  // issue sequence |sequence|; OK, or the device's failure (new status).
  // Never returns while issued work may still run.
  halo_status_t await_stream(uint64_t sequence) noexcept;
  // await_stream's usual way: an event recorded at the stream's tail,
  // polled, then slept on. Sets |*work_failed| when the event reports
  // failed work, as opposed to failing to be made or recorded.
  halo_status_t await_tail_event(bool* work_failed) noexcept;
  // Records |event| at the stream's tail, under the issue lock; the issue
  // sequence it follows, or 0 when recording failed (|*status| says why).
  uint64_t mark_tail(CUevent event, halo_status_t* status) noexcept;

  sdk::Host host_;
  Device* device_;
  // Serialises issuing, so that issue sequences follow stream order.
  std::mutex issue_mutex_;
  uint64_t issued_count_ = 0;  // Guarded by issue_mutex_.
  // The worker's own: every submission up to this issue sequence is done;
  // the plain event it polls and the blocking-sync event it sleeps on, both
  // recorded at the stream's tail when it needs them (made on first need).
  uint64_t done_through_ = 0;
  CUevent poll_event_ = nullptr;
  CUevent sleep_event_ = nullptr;
  sdk::InFlightTracker in_flight_;
  // Finished submissions' memory, reused by the next submissions or freed
  // by the idle worker; before the worker, so destroyed after it has
  // stopped.
  sdk::ReturnedAllocations returned_allocations_;
  sdk::CompletionWorker worker_;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_QUEUE_HPP_
