// The opencl device's submission queue: queue_execute, the completion worker
// that completes and releases issued submissions, and wait_idle.
//
// How an issued submission's completion is observed depends on the device
// (DeviceDescription::completion_poll). With a poll time, the submitting
// thread hands the submission to the worker, which polls its completion
// event for that long and completes it itself: no callback, no OpenCL
// object per submission, and while work keeps coming the worker spins for
// the next one instead of sleeping. Longer work joins the queue's long
// polls, flushed first if the implementation still holds it
// (Submission::begin_long_poll): the worker queries the oldest between its
// other hand-overs and while idle, each time a quarter longer after the
// last (at most 0.5 ms apart), so that no thread spins for as long as the
// device runs and the worker goes on releasing finished work meanwhile;
// polled completions land in the order the submissions were issued. A
// CL_COMPLETE callback would keep threads free too, but NVIDIA's driver
// delivers it milliseconds after the work ends.
//
// A chain is seen by its newest link. A submission that chained on the
// completion event of an earlier issued one of the queue covers it
// (Submission::covers): its own successful completion shows the older
// one's. So while the worker waits to poll a submission, a newer issued
// one that covers it (announced as it is issued, note_covering) stops the
// wait without a query; the older one joins the queue's run, and the newer
// one, not yet taken by the worker then, is polled in its place. When a
// polled submission finishes successfully, the run lands first, oldest
// first, each submission as completed; otherwise, or when the next one
// taken does not cover the run's newest, the run's submissions join the
// long polls and are asked one by one. A run stops growing once its oldest
// is kLongestRunLag old, so a chain that never ends still lands as it goes.
// On NVIDIA's driver each query takes the lock the caller's next enqueue
// needs, and most links of a chain of submissions, each waiting on the one
// before, are never asked about.
//
// Without a poll time the callback is registered at once and the worker
// only releases.
#ifndef HALO_OPENCL_QUEUE_HPP_
#define HALO_OPENCL_QUEUE_HPP_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "cl_library.hpp"
#include "deferred_releases.hpp"
#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/returned_allocations.hpp"

namespace halo::cl {

struct Device;
class Submission;

// A Queue belongs to its device and is destroyed by the device's destroy;
// see sdk::CompletionWorker for how the device's last reference may go on
// the worker.
class Queue {
 public:
  // Starts the worker thread, which polls issued work for |completion_poll|
  // (see the file comment). Throws std::bad_alloc or std::system_error.
  static Queue* create(sdk::Host host, const Api* api,
                       std::chrono::microseconds completion_poll);
  // Stops the worker (waiting for it to end, unless called on the
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
    halo_status_t status = in_flight_.wait_idle(host_, deadline);
    // What finished has deferred its events: released here, off the worker.
    deferred_releases_.release_all();
    return status;
  }

  // Hands a submission whose outcome is decided to the worker. Short and
  // non-blocking: called from OpenCL and timepoint callbacks.
  void post_finished(Submission* submission) noexcept;

  // Whether issued submissions go to the worker to be polled.
  bool polls_completion() const noexcept {
    return completion_poll_.count() > 0;
  }
  // Hands an issued submission to the worker to poll its completion. Short
  // and non-blocking, like post_finished.
  void post_issued(Submission* submission) noexcept;
  // The issue number of a submission being issued: 1 up, in issue order.
  uint64_t next_issue_number() noexcept {
    return issue_count_.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  // Submission |coverer| is being issued and covers the one numbered
  // |covered| (see the file comment). Lock-free.
  void note_covering(uint64_t coverer, uint64_t covered) noexcept;
  // On the worker: whether a submission issued after the one numbered
  // |number|, and not taken by the worker yet, covers it (as far as the
  // notes tell: the taking checks).
  bool overtakes(uint64_t number) const noexcept {
    return covered_.load(std::memory_order_relaxed) >= number &&
           newest_coverer_.load(std::memory_order_relaxed) > taken_upto_;
  }

  // Releases |event| (one reference, taken over): when the worker polls,
  // later, on the next submitting thread or the idle worker (see
  // DeferredReleases); else now.
  void release_event(cl_event event) noexcept;

  // Use create; public only so that the host allocator can construct it.
  Queue(sdk::Host host, const Api* api,
        std::chrono::microseconds completion_poll) noexcept
      : host_(host),
        api_(api),
        completion_poll_(completion_poll),
        deferred_releases_(host, api),
        returned_allocations_(host),
        worker_(&Queue::process, this, completion_poll,
                completion_poll.count() > 0 ? &Queue::poll_long : nullptr,
                &Queue::on_idle) {}

 private:
  halo_status_t acquire_command_buffers(
      Device* device, const halo_queue_execute_info_t& info) noexcept;
  void release_command_buffers(const halo_queue_execute_info_t& info,
                               size_t count) noexcept;
  static void process(void* queue, sdk::Submission* submission) noexcept;
  // The worker takes an issued submission: polls it, or leaves it to the
  // run or the long polls (see the file comment).
  void take_issued(Submission* submission) noexcept;
  // Lands every submission of the run as completed, oldest first.
  void land_run() noexcept;
  // Moves the run's submissions, unseen, to the long polls (which must be
  // empty), to be asked one by one.
  void end_run_unseen() noexcept;
  // The worker's PollFunction: polls the oldest long poll when it is due,
  // completes it and those behind it that finished, and returns the time
  // until its next poll (0: none left).
  static std::chrono::nanoseconds poll_long(void* queue) noexcept;
  // The worker's IdleFunction: releases what the queue keeps for the next
  // submitting thread.
  static void on_idle(void* queue) noexcept;

  sdk::Host host_;
  const Api* const api_;
  const std::chrono::microseconds completion_poll_;
  // Before the worker: destroyed after it has stopped.
  DeferredReleases deferred_releases_;
  // Issued submissions whose work outlasted the poll, or that were issued
  // behind such, oldest first (worker only; linked through
  // Submission::next_long).
  Submission* long_head_ = nullptr;
  Submission* long_tail_ = nullptr;
  // Issued submissions that a newer one overtook before they were seen
  // finished, each covered by the next, oldest first (worker only, and
  // only while there are no long polls; linked through
  // Submission::next_long).
  Submission* run_head_ = nullptr;
  Submission* run_tail_ = nullptr;
  // The highest issue number of the issued submissions the worker has
  // taken (worker only).
  uint64_t taken_upto_ = 0;
  std::atomic<uint64_t> issue_count_{0};
  // Of the issued submissions that cover another: the highest number
  // covered, and the highest number of one that covers.
  std::atomic<uint64_t> covered_{0};
  std::atomic<uint64_t> newest_coverer_{0};
  sdk::InFlightTracker in_flight_;
  // Finished submissions' memory, reused by the next submissions or freed
  // by the idle worker; before the worker, so destroyed after it has
  // stopped.
  sdk::ReturnedAllocations returned_allocations_;
  sdk::CompletionWorker worker_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_QUEUE_HPP_
