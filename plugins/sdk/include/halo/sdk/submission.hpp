// One queue_execute on its way through a plugin's queue: the part of the
// queue contract every plugin shares.
//
// A Submission holds copies of the wait, signal and command-buffer lists of
// a halo_queue_execute_info_t, retains everything they name and the device,
// and decides when the work may start. Each wait is either native (the
// plugin lets the device wait for it, or it is reached already) or host-side:
// a timepoint on the semaphore, of any plugin, through its own vtable. The
// submission counts its unsettled host-side waits in one atomic word and
// becomes ready exactly once: when the last settles, or at the first
// failure. The object, its waits (timepoints included), its signals and any
// arrays the plugin asks for live in one host allocation, so a submission
// costs one allocation whatever its lists.
//
// What the plugin supplies is only native: which waits the device can take
// (set_native before register_waits; convert_to_native afterwards), how to
// hand ready work to the device, and when the device finished it.
//
// Life of a submission:
//   T* s = Submission::create<T>(host, device, lists, arguments...);
//   ... set_native(i) for the waits the device takes itself ...
//   if (s->register_waits(&on_ready)) on_ready(s);   // else a callback will
//   ... hand the work to the device; once it finished, outside any
//   timepoint callback (a queue's CompletionWorker):
//   s->complete();               // signals, or fails the signals
//   s->release_resources();      // before wait_idle may return
//   Submission::destroy(s);      // the device reference goes last
#ifndef HALO_SDK_SUBMISSION_HPP_
#define HALO_SDK_SUBMISSION_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "halo/device.h"
#include "halo/sdk/allocation_plan.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/returned_allocations.hpp"
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

// INVALID_ARGUMENT, in the one wording every plugin uses, when |info|'s
// affinity selects no queue of a device that has queue 0 only.
halo_status_t check_single_queue_affinity(
    Host host, const halo_queue_execute_info_t& info) noexcept;

// The lists a submission copies (borrowed).
struct SubmissionLists {
  SemaphoreList waits;
  SemaphoreList signals;
  size_t command_buffer_count = 0;
  halo_command_buffer_t* const* command_buffers = nullptr;

  static SubmissionLists of(const halo_queue_execute_info_t& info) noexcept {
    return {{info.wait_count, info.wait_semaphores, info.wait_values},
            {info.signal_count, info.signal_semaphores, info.signal_values},
            info.command_buffer_count,
            info.command_buffers};
  }
};

class Submission {
 public:
  // Called exactly once per submission whose register_waits returned false,
  // on any thread, inside a timepoint callback (possibly another plugin's):
  // it must be short and must not block, nor complete or destroy the
  // submission itself.
  using ReadyFunction = void (*)(Submission* submission) noexcept;

  enum WaitState : uint32_t {
    kHost = 0,        // Host-side: a timepoint will be registered.
    kRegistered = 1,  // Its timepoint is registered and has not run.
    kSettled = 2,     // Its timepoint ran (reached or failed).
    kNative = 3,      // Left to the device, or reached: no timepoint.
  };

  struct Wait {
    halo_semaphore_t* semaphore = nullptr;  // Retained.
    uint64_t value = 0;
    std::atomic<uint32_t> state{kHost};
    // Becomes 1 as the last act of the timepoint callback (or when no
    // callback will run), so finish_waits cancels only the others.
    std::atomic<uint32_t> done{1};
    halo_timepoint_t timepoint = {};  // user_data is this Wait.
    Submission* owner = nullptr;
  };

  struct Signal {
    halo_semaphore_t* semaphore = nullptr;  // Retained.
    uint64_t value = 0;
    // The device signals it itself: complete() leaves it alone.
    bool native = false;
  };

  // What create passes to the derived constructor; forward it to the base.
  struct Init;

  // Allocates a T (derived from Submission) with its lists in one host
  // allocation, or reuses a block of |recycled| that fits (may be NULL: the
  // queue's returned allocations, which destroy fills with submissions of
  // this T), retains |device| (may be NULL), every semaphore and every
  // command buffer, and constructs T(init, arguments...). A T that needs
  // arrays of its own declares
  //   struct Extra { ...offsets... };
  //   static Extra plan_extra(AllocationPlan&, const SubmissionLists&);
  // and is constructed as T(init, extra, arguments...); init.at<X>(offset)
  // locates each array. Throws std::bad_alloc.
  template <class T, class... Args>
  static T* create(Host host, ReturnedAllocations* recycled,
                   halo_device_t* device, const SubmissionLists& lists,
                   Args&&... arguments);

  // Runs the derived destructor, releases whatever is still held (the
  // device last) and frees the allocation. Accepts NULL. The waits must be
  // finished (finish_waits, complete, release_resources), or never
  // registered.
  static void destroy(Submission* submission) noexcept {
    destroy(submission, nullptr);
  }
  // The same, but the allocation goes to |returned| (NULL: freed at once),
  // for the queue's next submission to reuse or its thread to free: call it
  // so on a queue's completion thread (returned_allocations.hpp says why).
  static void destroy(Submission* submission,
                      ReturnedAllocations* returned) noexcept;

  // Before register_waits: the device takes wait |index| itself (or it is
  // reached), so no timepoint is registered for it.
  void set_native(size_t index) noexcept {
    waits_[index].state.store(kNative, std::memory_order_relaxed);
  }

  // Registers |timepoint| on |semaphore| for a host-side wait of
  // |submission|, as the semaphore's acquire_timepoint does, for a plugin
  // that knows a cheaper way for some of its own semaphores.
  using AcquireFunction =
      halo_status_t (*)(Submission* submission, halo_semaphore_t* semaphore,
                        halo_timepoint_t* timepoint) noexcept;

  // Registers a timepoint for every host-side wait, through |acquire| when
  // given. Returns true when the submission is ready on return (every wait
  // settled, or one failed): the caller then owns what happens next.
  // Otherwise |on_ready| runs exactly once, from the timepoint callback
  // that makes it ready. A wait that cannot be registered counts as failed
  // with the reason.
  bool register_waits(ReadyFunction on_ready,
                      AcquireFunction acquire = nullptr) noexcept;

  // Converts a registered wait to a native one if its timepoint can still
  // be cancelled (the device will reach its value by itself). Returns true
  // when that made the submission ready; the caller then owns it.
  bool convert_to_native(size_t index) noexcept;

  // The first failure (owned by the submission), or NULL.
  halo_status_t failure() const noexcept {
    return failure_.load(std::memory_order_acquire);
  }
  // Keeps |status| as the failure unless one is kept already (then frees
  // it). Takes ownership. Thread-safe.
  void record_failure(halo_status_t status) noexcept;

  // After ready: cancels the timepoints that have not run and waits for
  // callbacks still running, so that the submission may be freed. Never
  // from inside one of its timepoint callbacks.
  void finish_waits() noexcept;
  // Fails every signal semaphore with a copy of |status| (borrowed).
  void fail_signals(halo_status_t status) noexcept;
  // Signals every signal the device did not (see SemaphoreList's
  // signal_semaphores for refused signals).
  void signal_host_signals() noexcept;
  // finish_waits, then fail_signals(failure()) or signal_host_signals().
  void complete() noexcept;
  // finish_waits, then releases the semaphores and the command buffers
  // (not the device). Idempotent.
  void release_resources() noexcept;
  // Drops the device reference now unless it is the device's last; then
  // destroy drops it. device() is NULL once it is dropped.
  void release_device_unless_last() noexcept;

  Host host() const noexcept { return host_; }
  halo_device_t* device() const noexcept { return device_; }
  size_t wait_count() const noexcept { return wait_count_; }
  Wait& wait(size_t index) noexcept { return waits_[index]; }
  const Wait& wait(size_t index) const noexcept { return waits_[index]; }
  size_t signal_count() const noexcept { return signal_count_; }
  Signal& signal(size_t index) noexcept { return signals_[index]; }
  const Signal& signal(size_t index) const noexcept { return signals_[index]; }
  size_t command_buffer_count() const noexcept { return command_buffer_count_; }
  halo_command_buffer_t* command_buffer(size_t index) const noexcept {
    return command_buffers_[index];
  }
  halo_command_buffer_t* const* command_buffers() const noexcept {
    return command_buffers_;
  }

  // Queue bookkeeping: InFlightTracker's list and CompletionWorker's FIFO.
  uint64_t sequence = 0;
  Submission* previous_tracked = nullptr;
  Submission* next_tracked = nullptr;
  Submission* next_ready = nullptr;

 protected:
  explicit Submission(const Init& init) noexcept;
  virtual ~Submission();

  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;

 private:
  struct Layout;
  static Layout plan(AllocationPlan& plan, const SubmissionLists& lists);
  static void on_timepoint(void* user_data, halo_timepoint_t* timepoint,
                           halo_status_t status) noexcept;
  // Applies one event to state_ (a wait settled, a failure, registration
  // over); true when this event made the submission ready: the caller must
  // then fire it, and that is its last touch.
  bool settle(uint64_t remove, uint64_t add) noexcept;

  Host host_;
  halo_device_t* device_;
  void* allocation_;
  size_t allocation_size_;
  size_t wait_count_;
  Wait* waits_;
  size_t signal_count_;
  Signal* signals_;
  size_t command_buffer_count_;
  halo_command_buffer_t** command_buffers_;
  ReadyFunction on_ready_ = nullptr;
  // One word so that "ready" is a single atomic transition, seen by exactly
  // one party: bit 0 FAILED, bit 1 REGISTERING (register_waits has not
  // finished), bits 2+ the host-side waits not yet settled.
  std::atomic<uint64_t> state_;
  std::atomic<halo_status_t> failure_{nullptr};
  bool resources_held_ = true;
};

struct Submission::Layout {
  size_t waits = 0;
  size_t signals = 0;
  size_t command_buffers = 0;
};

struct Submission::Init {
  Host host;
  halo_device_t* device;
  void* allocation;
  size_t allocation_size;
  Layout layout;
  const SubmissionLists& lists;

  // The array at |offset| of the allocation (an offset from plan_extra).
  template <class T>
  T* at(size_t offset) const noexcept {
    return plan_at<T>(allocation, offset);
  }
};

template <class T, class... Args>
T* Submission::create(Host host, ReturnedAllocations* recycled,
                      halo_device_t* device, const SubmissionLists& lists,
                      Args&&... arguments) {
  static_assert(std::is_base_of_v<Submission, T>);
  AllocationPlan allocation_plan(sizeof(T));
  Layout layout = plan(allocation_plan, lists);
  constexpr bool kHasExtra = requires(AllocationPlan& p) {
    T::plan_extra(p, lists);
  };
  auto extra = [&] {
    if constexpr (kHasExtra) {
      return T::plan_extra(allocation_plan, lists);
    } else {
      return 0;
    }
  }();
  constexpr size_t kAlignment = alignof(T) > alignof(std::max_align_t)
                                    ? alignof(T)
                                    : alignof(std::max_align_t);
  size_t size = allocation_plan.total();
  void* memory = nullptr;
  if (recycled != nullptr) {
    size_t recycled_size = 0;
    memory = recycled->take(size, kAlignment, &recycled_size);
    if (memory != nullptr) size = recycled_size;
  }
  if (memory == nullptr) memory = host.allocate(size, kAlignment);
  if (memory == nullptr) throw std::bad_alloc();
  Init init{host, device, memory, size, layout, lists};
  try {
    if constexpr (kHasExtra) {
      return ::new (memory) T(init, extra, std::forward<Args>(arguments)...);
    } else {
      (void)extra;
      return ::new (memory) T(init, std::forward<Args>(arguments)...);
    }
  } catch (...) {
    // The base (constructed first, and noexcept) has released what it
    // retained but the device, which destroy would release last.
    host.deallocate(memory);
    if (device != nullptr) host.release(as_object(device));
    throw;
  }
}

}  // namespace halo::sdk

#endif  // HALO_SDK_SUBMISSION_HPP_
