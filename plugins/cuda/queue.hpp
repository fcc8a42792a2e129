// The cuda device's submission queue: queue_execute, issuing ready work on
// the device's stream, the completion worker that retires it, and
// wait_idle.
#ifndef HALO_CUDA_QUEUE_HPP_
#define HALO_CUDA_QUEUE_HPP_

#include <mutex>
#include <vector>

#include "cuda_library.hpp"
#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"

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
  // Stops the worker (joining it, or detaching it when called on it),
  // destroys the pooled events and frees the queue. No submission may
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

  // Completion events: made on demand, kept for reuse.
  CUevent take_event() noexcept;
  void give_event(CUevent event) noexcept;

  sdk::Host host_;
  Device* device_;
  std::mutex issue_mutex_;
  std::mutex events_mutex_;
  std::vector<CUevent, sdk::HostAllocator<CUevent>> free_events_;
  sdk::InFlightTracker in_flight_;
  sdk::CompletionWorker worker_;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_QUEUE_HPP_
