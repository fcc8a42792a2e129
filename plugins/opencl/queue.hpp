// The opencl device's submission queue: queue_execute, the completion worker
// that releases finished submissions, and wait_idle.
#ifndef HALO_OPENCL_QUEUE_HPP_
#define HALO_OPENCL_QUEUE_HPP_

#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"

namespace halo::cl {

struct Device;
class Submission;

// A Queue belongs to its device and is destroyed by the device's destroy;
// see sdk::CompletionWorker for how the device's last reference may go on
// the worker.
class Queue {
 public:
  // Starts the worker thread. Throws std::bad_alloc or std::system_error.
  static Queue* create(sdk::Host host);
  // Stops the worker (joining it, or detaching it when called on the
  // worker) and frees the queue. No submission may exist.
  static void destroy(Queue* queue) noexcept;

  // Submits |info| on |device| and returns without blocking. Returns
  // INVALID_ARGUMENT for an affinity without queue 0 or a command buffer of
  // another plugin or context, FAILED_PRECONDITION for a command buffer not
  // ended (or a ONE_SHOT one submitted again), RESOURCE_EXHAUSTED when
  // memory runs out, or the failing OpenCL call's status. Thread-safe.
  halo_status_t execute(Device* device,
                        const halo_queue_execute_info_t* info) noexcept;

  // Blocks until every submission made before the call has completed and
  // released what it held (OK), or |deadline| passes (DEADLINE_EXCEEDED).
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept {
    return in_flight_.wait_idle(host_, deadline);
  }

  // Hands a submission whose outcome is decided to the worker. Short and
  // non-blocking: called from OpenCL and timepoint callbacks.
  void post_finished(Submission* submission) noexcept;

  // Use create; public only so that the host allocator can construct it.
  explicit Queue(sdk::Host host) noexcept
      : host_(host), worker_(&Queue::process, this) {}

 private:
  halo_status_t acquire_command_buffers(
      Device* device, const halo_queue_execute_info_t& info) noexcept;
  void release_command_buffers(const halo_queue_execute_info_t& info,
                               size_t count) noexcept;
  static void process(void* queue, sdk::Submission* submission) noexcept;

  sdk::Host host_;
  sdk::InFlightTracker in_flight_;
  sdk::CompletionWorker worker_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_QUEUE_HPP_
