// A reusable timeline-semaphore core: payload, sticky failure and timepoints.
//
// Any plugin whose semaphores are (or shadow) a host-side 64-bit value can
// build on Timeline: it implements every row of DESIGN.md §4 except blocking
// host waits, which depend on the plugin's wait primitive. A subclass learns
// about every payload change through on_changed() and wakes its waiters there.
//
// Timepoints live in caller-owned halo_timepoint_t storage; the core threads
// its list through the timepoint's `implementation` words, so registering
// never allocates. The list is kept sorted by value, so a signal releases a
// prefix in O(released). Callbacks always run outside the lock.
#ifndef HALO_SDK_TIMELINE_HPP_
#define HALO_SDK_TIMELINE_HPP_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

class SharedTimeline;

class Timeline {
 public:
  // Starts with payload |initial_value| (the caller has checked it against
  // HALO_SEMAPHORE_MAX_VALUE). Borrows |host|, which must outlive the core.
  Timeline(Host host, uint64_t initial_value) noexcept;
  // Frees the failure status. Timepoints still registered are abandoned:
  // the semaphore contract forbids destroying a semaphore with pending ones.
  virtual ~Timeline();

  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  Host host() const noexcept { return host_; }

  // Returns the raw payload: a value >= HALO_SEMAPHORE_FAILURE_VALUE means
  // failed. Never blocks, never allocates. Thread-safe. Subclasses pass
  // seq_cst to re-check after announcing a waiter (a Dekker pair with the
  // seq_cst store of signal and fail, followed by on_changed).
  uint64_t payload(
      std::memory_order order = std::memory_order_acquire) const noexcept {
    return value_->load(order);
  }

  // Stores the payload in |out_value| and returns OK, or a copy of the
  // failure status with a failure value. Never blocks; takes no lock. Inline:
  // it is the hot path of every query.
  halo_status_t query(uint64_t* out_value) const noexcept {
    const uint64_t value = value_->load(std::memory_order_acquire);
    *out_value = value;
    if (value < HALO_SEMAPHORE_FAILURE_VALUE) [[likely]] return HALO_OK;
    return clone_failure();
  }

  // Returns a new copy of the failure status, or NULL if not failed. A
  // shared timeline failed by another sharer (its status stayed there)
  // gives DATA_LOSS saying so.
  halo_status_t clone_failure() const noexcept;

  // Moves the payload into |shared|'s page (external_handle.h, ABI 1.6),
  // whose payload is then the timeline's: every change made here is
  // announced there, and changed_elsewhere() takes in those of the other
  // sharers. Call before the timeline is used by more than one thread;
  // |shared| must outlive every later call but the destructor.
  void share(SharedTimeline* shared) noexcept;

  // Releases what the payload reached, and tells on_changed, after another
  // sharer of the page changed it. Thread-safe.
  void changed_elsewhere() noexcept;

  // Raises the payload to |value| and releases every timepoint it reaches.
  // Returns INVALID_ARGUMENT (payload unchanged, even against racing
  // signallers) unless current < |value| <= MAX; a copy of the failure status
  // if failed. Takes no lock and allocates nothing when no timepoint is
  // pending. Thread-safe.
  halo_status_t signal(uint64_t value) noexcept;

  // Fails the timeline with |status| (takes ownership; never NULL). The first
  // failure wins and later ones are freed. Every timepoint is released with a
  // copy of the failure. Thread-safe.
  void fail(halo_status_t status) noexcept;

  // Registers |timepoint| (caller-owned; see halo_timepoint_t). Runs the
  // callback inline, before returning, when the value is already reached or
  // the timeline failed. Allocates nothing. Returns INVALID_ARGUMENT for a
  // NULL callback or a value above MAX. Thread-safe.
  halo_status_t acquire(halo_timepoint_t* timepoint) noexcept;

  // Cancels |timepoint|. Returns true when its callback will never run;
  // false when the callback has run to completion, waiting for a callback
  // running on another thread. Called from inside a callback that this
  // timeline (or any other) is dispatching on the same thread, it cancels
  // timepoints of that dispatch which have not started yet instead of
  // waiting for it. Thread-safe.
  bool cancel(halo_timepoint_t* timepoint) noexcept;

  // Returns the number of registered timepoints not yet released.
  size_t pending_timepoints() const noexcept {
    // seq_cst: a shared timeline's watcher decides by it whether to sleep
    // on the page (SharedTimeline::rest).
    return pending_.load(std::memory_order_seq_cst);
  }

 protected:
  // The page given to share(), or NULL.
  SharedTimeline* shared() const noexcept { return shared_; }

  // Called after every payload change (|payload| is the new value, or
  // HALO_SEMAPHORE_FAILURE_VALUE after a failure), before timepoints are
  // released, on the changing thread. Must not block.
  virtual void on_changed(uint64_t payload) noexcept { (void)payload; }

 private:
  struct Dispatch;

  void insert_sorted(halo_timepoint_t* timepoint) noexcept;
  void unlink(halo_timepoint_t* timepoint) noexcept;
  bool detach_released(Dispatch* dispatch) noexcept;
  void release_reached() noexcept;
  void run_dispatch(Dispatch* dispatch) noexcept;
  void run_inline(halo_timepoint_t* timepoint) noexcept;
  bool dispatch_active(uintptr_t dispatch_id) const noexcept;
  Dispatch* own_dispatch(uintptr_t dispatch_id) const noexcept;

  // The dispatches running on this thread, innermost first, so that a cancel
  // issued from inside a callback never waits for its own dispatch.
  static thread_local Dispatch* thread_dispatches_;

  Host host_;
  // The payload, >= HALO_SEMAPHORE_FAILURE_VALUE once failed: own_value_,
  // or a shared page's payload word.
  std::atomic<uint64_t> own_value_;
  std::atomic<uint64_t>* value_ = &own_value_;
  SharedTimeline* shared_ = nullptr;
  // The first failure, stored before the failure value is published.
  std::atomic<halo_status_t> failure_{nullptr};
  // Registered, not yet released timepoints. Signal reads it without the
  // lock to skip the lock entirely when it is zero.
  std::atomic<size_t> pending_{0};

  // Everything below is guarded by mutex_.
  mutable std::mutex mutex_;
  // Woken when a dispatch ends while a cancel waits for it.
  std::condition_variable dispatch_done_;
  halo_timepoint_t* head_ = nullptr;
  halo_timepoint_t* tail_ = nullptr;
  Dispatch* active_dispatches_ = nullptr;
  uintptr_t next_dispatch_id_ = 0;
  size_t cancel_waiters_ = 0;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_TIMELINE_HPP_
