// Events the completion worker is done with, released by the next thread
// that submits instead of by the worker.
//
// On NVIDIA's driver a clReleaseEvent on the worker while the caller
// enqueues serialises the two on the driver's lock: timed on the H100, the
// worker's release of a finished kernel's event took 11 µs and the caller's
// enqueue 4 µs longer than alone (bench/README.md, "OpenCL calls timed").
// The submitting thread releases them just before its own enqueue, where
// nothing waits on either. Used where the worker polls completion (GPUs).
#ifndef HALO_OPENCL_DEFERRED_RELEASES_HPP_
#define HALO_OPENCL_DEFERRED_RELEASES_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>

#include "cl_library.hpp"

namespace halo::cl {

class DeferredReleases {
 public:
  explicit DeferredReleases(const Api* api) noexcept : api_(api) {}
  ~DeferredReleases() { release_all(); }
  DeferredReleases(const DeferredReleases&) = delete;
  DeferredReleases& operator=(const DeferredReleases&) = delete;

  // Takes over one reference to |event| (may be NULL), to release later; at
  // once when kCapacity are waiting already (nobody has submitted since).
  // Thread-safe.
  void defer(cl_event event) noexcept;
  // Releases every deferred event; one atomic load when there is none.
  // Thread-safe.
  void release_all() noexcept;

 private:
  // Bounds the events kept alive for a queue nobody submits to any more.
  static constexpr size_t kCapacity = 64;

  const Api* const api_;
  std::atomic<bool> pending_{false};
  std::mutex mutex_;
  std::array<cl_event, kCapacity> events_{};
  size_t count_ = 0;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_DEFERRED_RELEASES_HPP_
