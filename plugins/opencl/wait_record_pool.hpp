// Records of host-side waits, pooled per device.
//
// Every wait a submission cannot settle on the device (a value not yet
// signalled by an issued submission of the same context, or a semaphore of
// another device or plugin) becomes a timepoint on the semaphore, held in a
// WaitRecord. Submissions come and go at a high rate, so records return to
// a per-device free list instead of the allocator (as IREE's CUDA driver
// pools its events and timepoints). The OpenCL user events the waits gate
// cannot be pooled: a user event's status is set once.
#ifndef HALO_OPENCL_WAIT_RECORD_POOL_HPP_
#define HALO_OPENCL_WAIT_RECORD_POOL_HPP_

#include <atomic>
#include <cstddef>
#include <mutex>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::cl {

class Submission;

struct WaitRecord {
  // user_data is the record itself.
  halo_timepoint_t timepoint = {};
  Submission* submission = nullptr;
  // Borrowed from the submission, which retains it.
  halo_semaphore_t* semaphore = nullptr;
  // Set as the timepoint callback's last act, so that the submission
  // cancels only the timepoints whose callback has not run.
  std::atomic<uint32_t> done{0};
  // The pool's free list, or the submission's list of records.
  WaitRecord* next = nullptr;
};

class WaitRecordPool {
 public:
  // Keeps at most |max_free| released records for reuse.
  explicit WaitRecordPool(sdk::Host host, size_t max_free = 256) noexcept
      : host_(host), max_free_(max_free) {}
  // Frees the free records. Every acquired record must have been released.
  ~WaitRecordPool();
  WaitRecordPool(const WaitRecordPool&) = delete;
  WaitRecordPool& operator=(const WaitRecordPool&) = delete;

  // Returns a reset record, reused when one is free. Throws std::bad_alloc.
  // Thread-safe.
  WaitRecord* acquire();
  // Returns |record| to the pool (or frees it when the pool is full).
  // Thread-safe.
  void release(WaitRecord* record) noexcept;

  // Records allocated so far and records now free (tests, diagnostics).
  size_t allocated() const noexcept {
    return allocated_.load(std::memory_order_relaxed);
  }
  size_t free_count() const noexcept;

 private:
  sdk::Host host_;
  const size_t max_free_;
  std::atomic<size_t> allocated_{0};
  mutable std::mutex mutex_;
  WaitRecord* free_ = nullptr;
  size_t free_count_ = 0;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_WAIT_RECORD_POOL_HPP_
