// Pending submissions: wait for a list of semaphores of any plugin, then act.
//
// A PendingSubmission registers one timepoint per wait through each
// semaphore's own vtable (so semaphores of other plugins work the same way as
// the plugin's own), counts them down atomically and calls a "ready" function
// exactly once: with OK once every wait is reached, or as soon as one wait
// fails. The submission, its timepoints and copies of its wait and signal
// lists live in one host allocation; everything named is retained until the
// submission is destroyed, so callers may release their handles at once.
//
// Life of a submission:
//   T* s = PendingSubmission::create<T>(host, waits, signals, args...);
//   s->start(&on_ready);     // on_ready(s) runs exactly once, maybe inline
//   ... later, outside any timepoint callback (e.g. on a worker thread):
//   s->complete();           // cancels leftover waits, signals or fails
//   PendingSubmission::destroy(s);
#ifndef HALO_SDK_SCHEDULER_HPP_
#define HALO_SDK_SCHEDULER_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <utility>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

// A borrowed view of (semaphore, value) pairs.
struct SemaphoreList {
  size_t count = 0;
  halo_semaphore_t* const* semaphores = nullptr;
  const uint64_t* values = nullptr;
};

// Signals every semaphore of |list| to its value with signal_from_queue: a
// semaphore that refuses its signal is failed with the reason, the others
// are signalled regardless. Borrows everything. Thread-safe.
void signal_semaphores(Host host, const SemaphoreList& list) noexcept;

// Fails every semaphore of |list| with its own copy of |status| (borrowed,
// never NULL) through each semaphore's own vtable. Thread-safe.
void fail_semaphores(Host host, const SemaphoreList& list,
                     halo_status_t status) noexcept;

class PendingSubmission {
 public:
  // Called exactly once per started submission, on any thread (possibly
  // inline in start, possibly inside another plugin's timepoint callback):
  // it must be short and must not block, nor complete or destroy the
  // submission itself — hand it to a thread of your own for that.
  using ReadyFunction = void (*)(PendingSubmission* submission) noexcept;

  // What create passes to the derived constructor; forward it to the base.
  struct Init;

  // Allocates a T (derived from PendingSubmission) plus the timepoint array
  // and copies of |waits| and |signals| in one host allocation, constructs
  // T(init, arguments...) and retains every semaphore. Throws std::bad_alloc
  // when memory is exhausted or the lists are absurdly long.
  template <class T, class... Args>
  static T* create(Host host, const SemaphoreList& waits,
                   const SemaphoreList& signals, Args&&... arguments);

  // Destroys |submission| (accepts NULL): runs the derived destructor,
  // releases every semaphore still held and frees the allocation. The
  // submission must have completed its waits (finish_waits or complete), or
  // never have been started.
  static void destroy(PendingSubmission* submission) noexcept;

  // Registers the wait timepoints; |ready| runs exactly once when every wait
  // is reached or at the first failure. A wait that cannot even be
  // registered counts as failed with the registration's status.
  void start(ReadyFunction ready) noexcept;

  // After ready: the first failure (borrowed, owned by the submission), or
  // NULL when every wait was reached.
  halo_status_t failure() const noexcept {
    return failure_.load(std::memory_order_acquire);
  }

  // After ready: cancels the timepoints that have not run (after a failure
  // some waits may never be reached) and waits for callbacks still running,
  // so that the submission may then be freed. Must not be called from inside
  // a timepoint callback.
  void finish_waits() noexcept;

  // After ready: finish_waits, then signals the signal list (see
  // signal_semaphores), or fails every signal semaphore with a copy of
  // failure().
  void complete() noexcept;

  // Releases the semaphores early (destroy releases whatever is left).
  // Only after finish_waits.
  void release_semaphores() noexcept;

  Host host() const noexcept { return host_; }
  const SemaphoreList& waits() const noexcept { return waits_; }
  const SemaphoreList& signals() const noexcept { return signals_; }

 protected:
  explicit PendingSubmission(const Init& init) noexcept;
  virtual ~PendingSubmission();

  PendingSubmission(const PendingSubmission&) = delete;
  PendingSubmission& operator=(const PendingSubmission&) = delete;

 private:
  struct Layout;
  static Layout plan(size_t object_size, const SemaphoreList& waits,
                     const SemaphoreList& signals);
  static void on_timepoint(void* user_data, halo_timepoint_t* timepoint,
                           halo_status_t status) noexcept;
  void record_failure(halo_status_t status) noexcept;
  // Applies one event to state_ (a wait settled, a failure, registration
  // over) and returns true when this event made the submission ready: the
  // caller must then fire it, and that is the caller's last touch.
  bool settle(uint64_t remove, uint64_t add) noexcept;

  Host host_;
  void* allocation_;
  SemaphoreList waits_;
  SemaphoreList signals_;
  halo_timepoint_t* timepoints_;
  // done_[i] becomes 1 as the last act of wait i's callback (or when wait i
  // could not be registered), so finish_waits cancels only the others.
  std::atomic<uint32_t>* done_;
  ReadyFunction ready_ = nullptr;
  // One word so that "ready" is a single atomic transition, seen by exactly
  // one party: bit 0 FAILED, bit 1 REGISTERING (start has not finished),
  // bits 2+ the waits not yet settled. Ready means registration is over and
  // either every wait settled or one failed.
  std::atomic<uint64_t> state_;
  std::atomic<halo_status_t> failure_{nullptr};
  bool semaphores_held_ = true;
};

// Where create puts each part of the one allocation.
struct PendingSubmission::Layout {
  size_t total = 0;
  size_t timepoints = 0;
  size_t done = 0;
  size_t wait_semaphores = 0;
  size_t wait_values = 0;
  size_t signal_semaphores = 0;
  size_t signal_values = 0;
};

struct PendingSubmission::Init {
  Host host;
  void* allocation;
  Layout layout;
  SemaphoreList waits;
  SemaphoreList signals;
};

template <class T, class... Args>
T* PendingSubmission::create(Host host, const SemaphoreList& waits,
                             const SemaphoreList& signals,
                             Args&&... arguments) {
  static_assert(std::is_base_of_v<PendingSubmission, T>);
  Layout layout = plan(sizeof(T), waits, signals);
  size_t alignment = alignof(T) > alignof(std::max_align_t)
                         ? alignof(T)
                         : alignof(std::max_align_t);
  void* memory = host.allocate(layout.total, alignment);
  if (memory == nullptr) throw std::bad_alloc();
  Init init{host, memory, layout, waits, signals};
  try {
    return ::new (memory) T(init, std::forward<Args>(arguments)...);
  } catch (...) {
    host.deallocate(memory);
    throw;
  }
}

}  // namespace halo::sdk

#endif  // HALO_SDK_SCHEDULER_HPP_
