// The timeline core: payload, sticky failure, and the sorted timepoint list.
//
// Locking: signal, query and poll touch only atomics unless timepoints are
// pending. The per-timeline mutex guards the timepoint list, the list of
// dispatches in progress and each registered timepoint's link words.
//
// Race-free cancel: a signal detaches the reached prefix of the list into a
// Dispatch record (on the signaller's stack) that is linked into
// active_dispatches_ and given an id; each released timepoint records that
// id. The signaller then runs the callbacks outside the lock and touches no
// timepoint after its callback started. A cancel that finds its timepoint
// already detached waits, on dispatch_done_, until that dispatch id is no
// longer active — a bounded wait, since a dispatch runs a fixed set of short
// callbacks. A cancel issued on the dispatching thread itself (from a
// callback) instead unlinks the timepoint from the dispatch if its callback
// has not started yet, and never waits, so it cannot deadlock.
#include "halo/sdk/timeline.hpp"

#include <algorithm>
#include <atomic>

#include "halo/sdk/shared_timeline.hpp"

namespace halo::sdk {
namespace {

// How the core uses halo_timepoint_t::implementation while registered.
enum Word : size_t {
  kPrevious = 0,
  kNext = 1,
  kState = 2,
  kOwner = 3,
  kDispatchId = 4,
};

// Lifecycle of a registration. The state word is accessed atomically because
// the dispatcher marks a timepoint started without the lock while a cancel on
// another thread may read it under the lock.
enum State : uintptr_t {
  kIdle = 0,         // Not registered here, cancelled, or ran inline.
  kListed = 1,       // In the sorted list, waiting for its value.
  kDispatching = 2,  // Detached into a dispatch; the callback has not started.
  kStarted = 3,      // The callback started (it may have freed the storage).
};

halo_timepoint_t* link(const halo_timepoint_t* timepoint, Word word) noexcept {
  return reinterpret_cast<halo_timepoint_t*>(timepoint->implementation[word]);
}

void set_link(halo_timepoint_t* timepoint, Word word,
              halo_timepoint_t* target) noexcept {
  timepoint->implementation[word] = reinterpret_cast<uintptr_t>(target);
}

State state(halo_timepoint_t* timepoint) noexcept {
  return static_cast<State>(std::atomic_ref<uintptr_t>(
                                timepoint->implementation[kState])
                                .load(std::memory_order_relaxed));
}

void set_state(halo_timepoint_t* timepoint, State value) noexcept {
  std::atomic_ref<uintptr_t>(timepoint->implementation[kState])
      .store(value, std::memory_order_relaxed);
}

}  // namespace

// One batch of released timepoints, owned by the releasing thread's stack.
struct Timeline::Dispatch {
  uintptr_t id = 0;
  bool failed = false;
  // Timepoints whose callbacks have not started, in release order.
  halo_timepoint_t* head = nullptr;
  // Next in the owner's active_dispatches_ (guarded by its mutex).
  Dispatch* next_active = nullptr;
  // Owner and chain of dispatches running on this thread.
  const Timeline* owner = nullptr;
  Dispatch* previous_on_thread = nullptr;
};

thread_local Timeline::Dispatch* Timeline::thread_dispatches_ = nullptr;

Timeline::Timeline(Host host, uint64_t initial_value) noexcept
    : host_(host), own_value_(initial_value) {}

Timeline::~Timeline() {
  host_.free(failure_.load(std::memory_order_acquire));
}

halo_status_t Timeline::clone_failure() const noexcept {
  // The failure status is stored before the failure value is published, so
  // anyone who saw a failure value (with acquire) sees the status.
  halo_status_t failure = failure_.load(std::memory_order_acquire);
  if (failure != nullptr || shared_ == nullptr) return host_.clone(failure);
  const uint64_t value = value_->load(std::memory_order_acquire);
  if (value < HALO_SEMAPHORE_FAILURE_VALUE) return HALO_OK;
  return host_.make_status(
      HALO_STATUS_DATA_LOSS,
      "a shared semaphore: failed by another sharer of its host timeline "
      "(the shared payload is 0x%llx, a failure value); the failure status "
      "stayed there",
      static_cast<unsigned long long>(value));
}

void Timeline::share(SharedTimeline* shared) noexcept {
  shared_ = shared;
  value_ = shared->payload_word();
}

void Timeline::changed_elsewhere() noexcept {
  const uint64_t value = value_->load(std::memory_order_seq_cst);
  on_changed(std::min(value, HALO_SEMAPHORE_FAILURE_VALUE));
  if (pending_.load(std::memory_order_seq_cst) != 0) release_reached();
}

halo_status_t Timeline::signal(uint64_t value) noexcept {
  uint64_t current = value_->load(std::memory_order_acquire);
  do {
    if (current >= HALO_SEMAPHORE_FAILURE_VALUE) return clone_failure();
    if (value <= current || value > HALO_SEMAPHORE_MAX_VALUE) {
      return host_.make_status(
          HALO_STATUS_INVALID_ARGUMENT,
          "halo_semaphore_signal: value %llu must be greater than the current "
          "payload %llu and at most HALO_SEMAPHORE_MAX_VALUE",
          static_cast<unsigned long long>(value),
          static_cast<unsigned long long>(current));
    }
    // The CAS keeps the check and the store one step, so a racing signaller
    // with a higher value can never be overwritten by a lower one.
  } while (!value_->compare_exchange_weak(current, value,
                                          std::memory_order_seq_cst,
                                          std::memory_order_acquire));
  on_changed(value);
  if (shared_ != nullptr) shared_->announce_change();
  // seq_cst pairs with acquire(): either we see its pending count or it sees
  // our value, so no timepoint is missed.
  if (pending_.load(std::memory_order_seq_cst) != 0) release_reached();
  return HALO_OK;
}

void Timeline::fail(halo_status_t status) noexcept {
  if (status == nullptr) {
    status = host_.make_status_text(HALO_STATUS_UNKNOWN,
                                    "semaphore failed with an OK status");
  }
  halo_status_t expected = nullptr;
  if (!failure_.compare_exchange_strong(expected, status,
                                        std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    host_.free(status);  // The first failure wins.
    return;
  }
  value_->store(HALO_SEMAPHORE_FAILURE_VALUE, std::memory_order_seq_cst);
  on_changed(HALO_SEMAPHORE_FAILURE_VALUE);
  if (shared_ != nullptr) shared_->announce_change();
  if (pending_.load(std::memory_order_seq_cst) != 0) release_reached();
}

halo_status_t Timeline::acquire(halo_timepoint_t* timepoint) noexcept {
  if (timepoint == nullptr || timepoint->callback == nullptr) {
    return host_.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                  "timepoint and its callback must be set");
  }
  if (timepoint->value > HALO_SEMAPHORE_MAX_VALUE) {
    return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                             "timepoint value %llu is above "
                             "HALO_SEMAPHORE_MAX_VALUE",
                             static_cast<unsigned long long>(timepoint->value));
  }
  for (uintptr_t& word : timepoint->implementation) word = 0;
  timepoint->implementation[kOwner] = reinterpret_cast<uintptr_t>(this);
  // A failure value is above every valid timepoint value, so this one test
  // covers both "reached" and "failed".
  if (value_->load(std::memory_order_acquire) >= timepoint->value) {
    run_inline(timepoint);
    return HALO_OK;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    set_state(timepoint, kListed);
    pending_.fetch_add(1, std::memory_order_seq_cst);
    insert_sorted(timepoint);
    if (value_->load(std::memory_order_seq_cst) < timepoint->value) {
      // A later signal or fail releases it; another sharer's through the
      // watcher, which may be sleeping apart from the page until now. Told
      // under the lock: once it is released, the timepoint's callback may
      // drop the timeline's last reference.
      if (shared_ != nullptr) shared_->want_changes();
      return HALO_OK;
    }
    // A signal landed between the first check and the registration; it may
    // not have seen our pending count, so we release the timepoint ourselves.
    unlink(timepoint);
    pending_.fetch_sub(1, std::memory_order_relaxed);
    set_state(timepoint, kIdle);
  }
  run_inline(timepoint);
  return HALO_OK;
}

void Timeline::run_inline(halo_timepoint_t* timepoint) noexcept {
  uint64_t value = value_->load(std::memory_order_acquire);
  halo_status_t status =
      value >= HALO_SEMAPHORE_FAILURE_VALUE ? clone_failure() : HALO_OK;
  timepoint->callback(timepoint->user_data, timepoint, status);
}

void Timeline::insert_sorted(halo_timepoint_t* timepoint) noexcept {
  // Values mostly grow, so scanning from the tail is usually O(1). Equal
  // values keep registration order.
  halo_timepoint_t* before = tail_;
  while (before != nullptr && before->value > timepoint->value) {
    before = link(before, kPrevious);
  }
  halo_timepoint_t* after = before != nullptr ? link(before, kNext) : head_;
  set_link(timepoint, kPrevious, before);
  set_link(timepoint, kNext, after);
  if (before != nullptr) {
    set_link(before, kNext, timepoint);
  } else {
    head_ = timepoint;
  }
  if (after != nullptr) {
    set_link(after, kPrevious, timepoint);
  } else {
    tail_ = timepoint;
  }
}

void Timeline::unlink(halo_timepoint_t* timepoint) noexcept {
  halo_timepoint_t* before = link(timepoint, kPrevious);
  halo_timepoint_t* after = link(timepoint, kNext);
  if (before != nullptr) {
    set_link(before, kNext, after);
  } else {
    head_ = after;
  }
  if (after != nullptr) {
    set_link(after, kPrevious, before);
  } else {
    tail_ = before;
  }
  set_link(timepoint, kPrevious, nullptr);
  set_link(timepoint, kNext, nullptr);
}

bool Timeline::detach_released(Dispatch* dispatch) noexcept {
  uint64_t value = value_->load(std::memory_order_acquire);
  bool failed = value >= HALO_SEMAPHORE_FAILURE_VALUE;
  uintptr_t id = ++next_dispatch_id_;
  halo_timepoint_t* last = nullptr;
  size_t count = 0;
  for (halo_timepoint_t* timepoint = head_;
       timepoint != nullptr && (failed || timepoint->value <= value);
       timepoint = link(timepoint, kNext)) {
    set_state(timepoint, kDispatching);
    timepoint->implementation[kDispatchId] = id;
    last = timepoint;
    ++count;
  }
  if (count == 0) return false;
  dispatch->id = id;
  dispatch->failed = failed;
  dispatch->owner = this;
  dispatch->head = head_;
  head_ = link(last, kNext);
  if (head_ != nullptr) {
    set_link(head_, kPrevious, nullptr);
  } else {
    tail_ = nullptr;
  }
  set_link(last, kNext, nullptr);
  pending_.fetch_sub(count, std::memory_order_relaxed);
  dispatch->next_active = active_dispatches_;
  active_dispatches_ = dispatch;
  return true;
}

void Timeline::release_reached() noexcept {
  Dispatch dispatch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!detach_released(&dispatch)) return;
  }
  run_dispatch(&dispatch);
  std::lock_guard<std::mutex> lock(mutex_);
  for (Dispatch** slot = &active_dispatches_; *slot != nullptr;
       slot = &(*slot)->next_active) {
    if (*slot == &dispatch) {
      *slot = dispatch.next_active;
      break;
    }
  }
  if (cancel_waiters_ != 0) dispatch_done_.notify_all();
}

void Timeline::run_dispatch(Dispatch* dispatch) noexcept {
  dispatch->previous_on_thread = thread_dispatches_;
  thread_dispatches_ = dispatch;
  // Pop before each call and never cache a successor across a callback: the
  // callback may free its own timepoint or cancel (unlink) any later one.
  while (halo_timepoint_t* timepoint = dispatch->head) {
    dispatch->head = link(timepoint, kNext);
    if (dispatch->head != nullptr) {
      set_link(dispatch->head, kPrevious, nullptr);
    }
    halo_timepoint_callback_t callback = timepoint->callback;
    void* user_data = timepoint->user_data;
    halo_status_t status = dispatch->failed ? clone_failure() : HALO_OK;
    set_state(timepoint, kStarted);
    callback(user_data, timepoint, status);
  }
  thread_dispatches_ = dispatch->previous_on_thread;
}

bool Timeline::dispatch_active(uintptr_t dispatch_id) const noexcept {
  for (const Dispatch* dispatch = active_dispatches_; dispatch != nullptr;
       dispatch = dispatch->next_active) {
    if (dispatch->id == dispatch_id) return true;
  }
  return false;
}

Timeline::Dispatch* Timeline::own_dispatch(
    uintptr_t dispatch_id) const noexcept {
  for (Dispatch* dispatch = thread_dispatches_; dispatch != nullptr;
       dispatch = dispatch->previous_on_thread) {
    if (dispatch->owner == this && dispatch->id == dispatch_id) {
      return dispatch;
    }
  }
  return nullptr;
}

bool Timeline::cancel(halo_timepoint_t* timepoint) noexcept {
  if (timepoint == nullptr) return false;
  std::unique_lock<std::mutex> lock(mutex_);
  if (timepoint->implementation[kOwner] != reinterpret_cast<uintptr_t>(this)) {
    return false;
  }
  State current = state(timepoint);
  if (current == kListed) {
    unlink(timepoint);
    pending_.fetch_sub(1, std::memory_order_relaxed);
    set_state(timepoint, kIdle);
    return true;
  }
  if (current != kDispatching && current != kStarted) return false;
  uintptr_t id = timepoint->implementation[kDispatchId];
  if (Dispatch* own = own_dispatch(id)) {
    // We are inside this very dispatch: waiting would deadlock. A timepoint
    // whose callback has not started can simply be taken out of it; a
    // started one has run (or is the caller itself).
    if (current == kStarted) return false;
    halo_timepoint_t* before = link(timepoint, kPrevious);
    halo_timepoint_t* after = link(timepoint, kNext);
    if (before != nullptr) {
      set_link(before, kNext, after);
    } else {
      own->head = after;
    }
    if (after != nullptr) set_link(after, kPrevious, before);
    set_state(timepoint, kIdle);
    return true;
  }
  ++cancel_waiters_;
  dispatch_done_.wait(lock, [&] { return !dispatch_active(id); });
  --cancel_waiters_;
  return false;
}

}  // namespace halo::sdk
