// Events the completion worker is done with, released by the next thread
// that submits (or waits for the queue to idle) instead of by the worker
// while work flows.
//
// On NVIDIA's driver a clReleaseEvent on the worker while the caller
// enqueues serialises the two on the driver's lock: timed on the H100, the
// worker's release of a finished kernel's event took 11 µs and the caller's
// enqueue 4 µs longer than alone (bench/README.md, "OpenCL calls timed").
// The submitting thread releases them just before its own enqueue, where
// nothing waits on either. Used where the worker polls completion (GPUs).
//
// While work flows the worker never releases one itself, however many
// wait: it did once 64 waited, and then, behind a chain of 10,000 the
// caller enqueued faster than the worker could land it, each of its
// releases waited on the driver's lock, so it fell further behind and
// released every event from then on (bench/README.md, "Where a chain
// link's host time goes"). Once the queue has been idle for
// CompletionWorker::kIdleDelay, the worker releases what waits: the queue
// had nothing to hand it that long, and an idle queue keeps no finished
// work's events.
// What waits is bounded by the submissions that finish after the queue's
// last submission or wait_idle: the storage grows to that, once.
#ifndef HALO_OPENCL_DEFERRED_RELEASES_HPP_
#define HALO_OPENCL_DEFERRED_RELEASES_HPP_

#include <atomic>
#include <cstddef>
#include <mutex>

#include "cl_library.hpp"
#include "halo/sdk/host.hpp"

namespace halo::cl {

class DeferredReleases {
 public:
  DeferredReleases(sdk::Host host, const Api* api) noexcept
      : host_(host), api_(api) {}
  ~DeferredReleases();
  DeferredReleases(const DeferredReleases&) = delete;
  DeferredReleases& operator=(const DeferredReleases&) = delete;

  // Takes over one reference to |event| (may be NULL), to release later; at
  // once only when no memory is left to keep it. Thread-safe.
  void defer(cl_event event) noexcept;
  // Releases every deferred event; one atomic load when there is none.
  // Thread-safe.
  void release_all() noexcept;

 private:
  // A growable array of events, in host memory.
  struct Events {
    cl_event* items = nullptr;
    size_t count = 0;
    size_t capacity = 0;
  };
  // Appends |event| to |events_|, growing it; false when memory ran out.
  // With mutex_ held.
  bool append(cl_event event) noexcept;

  static constexpr size_t kInitialCapacity = 64;

  const sdk::Host host_;
  const Api* const api_;
  std::atomic<bool> pending_{false};
  std::mutex mutex_;
  Events events_;  // Guarded by mutex_.
  // Held by the one thread that releases at a time, with the array it
  // swapped out of events_, whose storage it gives back for the next.
  std::mutex releasing_;
  Events taken_;  // Guarded by releasing_.
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_DEFERRED_RELEASES_HPP_
