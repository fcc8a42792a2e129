// Semaphores of the C++ layer (halo/halo.hpp): halo::Semaphore, host waits
// over many of them, and halo::Timepoint, a registration that cancels itself.
#ifndef HALO_SEMAPHORE_HPP_
#define HALO_SEMAPHORE_HPP_

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "halo/object.hpp"

namespace halo {

class Fence;

class Semaphore
    : public Ref<halo_semaphore_t, halo_semaphore_retain, halo_semaphore_release> {
 public:
  using Ref::Ref;

  // Returns the payload; throws the failure status if the semaphore failed.
  std::uint64_t query() const {
    std::uint64_t value = 0;
    check(halo_semaphore_query(get(), &value));
    return value;
  }
  void signal(std::uint64_t value) const {
    check(halo_semaphore_signal(get(), value));
  }
  // Fails the semaphore with a new status of |code| (not OK) and |message|.
  void fail(halo_status_code_t code, const char* message) const {
    check(halo_semaphore_fail(get(), halo_status_create(code, message)));
  }
  // A fence of the one timepoint (this, |value|): `co_await
  // semaphore.reached(v)` in a halo::Task (halo/await.hpp). Defined in
  // halo/fence.hpp, which halo/halo.hpp includes.
  Fence reached(std::uint64_t value) const;
  // Returns true once the payload reaches |value|, false when |deadline|
  // passes first; throws on failure. The default deadline blocks.
  bool wait(std::uint64_t value,
            halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_semaphore_wait(get(), value, deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }
  // Fails the semaphore with |status| (not OK), taking ownership of it: an
  // Error's to_status(), or a status from another semaphore.
  void fail(StatusPtr status) const {
    check(halo_semaphore_fail(get(), status.release()));
  }
  // Exports the timeline as a handle of |type| (halo/external.h): a new file
  // descriptor the caller owns, to close or hand to an import. Needs a
  // semaphore created with HALO_SEMAPHORE_FLAG_EXPORTABLE on a device that
  // exports |type|.
  halo_external_handle_t export_handle(halo_external_handle_type_t type) const {
    halo_external_handle_t handle{};
    handle.struct_size = sizeof(handle);
    check(halo_semaphore_export(get(), type, &handle));
    return handle;
  }
  // Registers |timepoint|, caller-owned storage that must follow
  // semaphore.h's lifetime rules; halo::Timepoint keeps them for you.
  void acquire_timepoint(halo_timepoint_t& timepoint) const {
    check(halo_semaphore_acquire_timepoint(get(), &timepoint));
  }
  // Cancels |timepoint|: true when its callback will never run, false once
  // it has run to completion or when it is not registered here.
  bool cancel_timepoint(halo_timepoint_t& timepoint) const {
    bool cancelled = false;
    check(halo_semaphore_cancel_timepoint(get(), &timepoint, &cancelled));
    return cancelled;
  }
};

// (semaphore, value) pairs: a multi-semaphore wait's list, a submission's
// wait or signal list, or a fence's timepoints.
using TimepointList = std::vector<std::pair<Semaphore, std::uint64_t>>;

namespace detail {

inline bool wait_semaphores(halo_wait_mode_t mode, const TimepointList& timepoints,
                            halo_time_ns_t deadline) {
  std::vector<halo_semaphore_t*> semaphores;
  std::vector<std::uint64_t> values;
  semaphores.reserve(timepoints.size());
  values.reserve(timepoints.size());
  for (const auto& [semaphore, value] : timepoints) {
    semaphores.push_back(semaphore.get());
    values.push_back(value);
  }
  return reached_by_deadline(halo_semaphores_wait(mode, semaphores.size(), semaphores.data(),
                                                  values.data(), deadline));
}

}  // namespace detail

// Blocks until every pair of |timepoints| is reached (true) or |deadline|
// passes (false); an empty list is reached at once. Semaphores of any
// devices and plugins mix. Throws the failure of a failed semaphore in the
// list, which comes before everything else (halo_semaphores_wait).
inline bool wait_all(const TimepointList& timepoints,
                     halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) {
  return detail::wait_semaphores(HALO_WAIT_MODE_ALL, timepoints, deadline);
}
// As wait_all, but true once any one pair is reached. The C API does not say
// which one: query the semaphores to learn it.
inline bool wait_any(const TimepointList& timepoints,
                     halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) {
  return detail::wait_semaphores(HALO_WAIT_MODE_ANY, timepoints, deadline);
}

// A timepoint (semaphore.h) whose callback is a std::function, registered
// on construction and cancelled race-free on destruction: once a Timepoint
// is gone, its callback has run to completion or never will. The C storage
// lives on the heap and never moves, so the Timepoint is movable while
// registered; it is not copyable (a callback runs once).
//
// The callback runs exactly once unless cancelled: with NULL when the value
// is reached, with the failure status (owned) when the semaphore fails;
// inline in the constructor when that is so already, else on the thread
// that signals or fails. Like every timepoint callback it is short, never
// blocks, and must not throw: an exception cannot cross the C ABI, so one
// ends the program (std::terminate). Do not destroy or cancel a Timepoint
// from inside its own callback, nor from inside another timepoint's
// callback except where semaphore.h allows it.
class Timepoint {
 public:
  using Callback = std::function<void(StatusPtr status)>;

  Timepoint() noexcept = default;
  // Registers |callback| for |semaphore| (retained until destruction)
  // reaching |value|. Throws INVALID_ARGUMENT for an empty |callback| or a
  // |value| above HALO_SEMAPHORE_MAX_VALUE; the callback then never runs.
  Timepoint(const Semaphore& semaphore, std::uint64_t value, Callback callback)
      : state_(std::make_unique<State>()) {
    if (!callback) {
      throw Error(HALO_STATUS_INVALID_ARGUMENT, "halo::Timepoint: empty callback");
    }
    state_->semaphore = semaphore;
    state_->callback = std::move(callback);
    state_->timepoint.struct_size = sizeof(halo_timepoint_t);
    state_->timepoint.value = value;
    state_->timepoint.callback = &Timepoint::run;
    state_->timepoint.user_data = state_.get();
    semaphore.acquire_timepoint(state_->timepoint);
  }
  Timepoint(Timepoint&& other) noexcept = default;
  Timepoint& operator=(Timepoint&& other) noexcept {
    Timepoint(std::move(other)).swap(*this);
    return *this;
  }
  Timepoint(const Timepoint&) = delete;
  Timepoint& operator=(const Timepoint&) = delete;
  ~Timepoint() { cancel(); }

  // Cancels the callback: true when it will never run, false once it has
  // run to completion (waiting for it on another thread), and false for an
  // empty Timepoint or one cancelled before.
  bool cancel() noexcept {
    if (state_ == nullptr) {
      return false;
    }
    bool cancelled = false;
    halo_status_free(halo_semaphore_cancel_timepoint(state_->semaphore.get(),
                                                     &state_->timepoint, &cancelled));
    return cancelled;
  }
  // True once the callback has returned.
  bool done() const noexcept {
    return state_ != nullptr && state_->done.load(std::memory_order_acquire);
  }
  void swap(Timepoint& other) noexcept { state_.swap(other.state_); }
  explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  struct State {
    halo_timepoint_t timepoint{};
    Semaphore semaphore;
    Callback callback;
    std::atomic<bool> done{false};
  };

  // noexcept: a throwing callback ends the program here instead of
  // unwinding into the plugin that called it.
  static void run(void* user_data, halo_timepoint_t* /*timepoint*/,
                  halo_status_t status) noexcept {
    State* state = static_cast<State*>(user_data);
    state->callback(StatusPtr(status));
    state->done.store(true, std::memory_order_release);
  }

  std::unique_ptr<State> state_;
};

}  // namespace halo

#endif  // HALO_SEMAPHORE_HPP_
