// The opencl device's submission queue: queue_execute, the completion worker
// that releases finished submissions, and wait_idle.
#ifndef HALO_OPENCL_QUEUE_HPP_
#define HALO_OPENCL_QUEUE_HPP_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "wait_record_pool.hpp"

namespace halo::cl {

struct Device;
class Submission;

// Lifetime: a Queue belongs to its device and is destroyed by the device's
// destroy. Every submission retains the device, so the device (and so the
// queue) can only die when no submission exists — but its last reference
// may be dropped by the worker itself, while it destroys the last
// submission. Then destroy runs on the worker: it detaches the thread
// instead of joining it, frees the queue, and tells the worker loop
// (through a thread-local flag) to return without touching the queue again.
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
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept;

  // Hands a submission whose outcome is decided to the worker. Short and
  // non-blocking: called from OpenCL and timepoint callbacks.
  void post_finished(Submission* submission) noexcept;

  WaitRecordPool& pool() noexcept { return pool_; }

  // Use create; public only so that the host allocator can construct it.
  explicit Queue(sdk::Host host) noexcept : host_(host), pool_(host) {}

 private:
  halo_status_t acquire_command_buffers(
      Device* device, const halo_queue_execute_info_t& info) noexcept;
  void release_command_buffers(const halo_queue_execute_info_t& info,
                               size_t count) noexcept;
  void run() noexcept;
  void process(Submission* submission) noexcept;
  void track(Submission* submission) noexcept;
  void untrack(Submission* submission) noexcept;

  sdk::Host host_;
  WaitRecordPool pool_;
  std::mutex mutex_;
  // Wakes the worker: a submission finished, or the queue stops.
  std::condition_variable work_ready_;
  // Wakes wait_idle: the oldest in-flight submission was released.
  std::condition_variable progress_;
  Submission* ready_head_ = nullptr;
  Submission* ready_tail_ = nullptr;
  Submission* in_flight_head_ = nullptr;
  Submission* in_flight_tail_ = nullptr;
  uint64_t next_sequence_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_QUEUE_HPP_
