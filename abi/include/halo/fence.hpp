// Fences and wait handles of the C++ layer (halo/halo.hpp, halo/fence.h).
#ifndef HALO_FENCE_HPP_
#define HALO_FENCE_HPP_

#include <cstddef>
#include <utility>
#include <vector>

#include "halo/semaphore.hpp"

namespace halo {

// A pollable wait handle (halo_fence_create_wait_handle): owns its fd, which
// becomes readable once the fence's timepoints were reached or one failed.
// Move-only; destruction cancels it and closes the fd.
class WaitHandle {
 public:
  WaitHandle() noexcept = default;
  explicit WaitHandle(halo_wait_handle_t* handle) noexcept : handle_(handle) {}
  WaitHandle(WaitHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  WaitHandle& operator=(WaitHandle&& other) noexcept {
    WaitHandle(std::move(other)).swap(*this);
    return *this;
  }
  WaitHandle(const WaitHandle&) = delete;
  WaitHandle& operator=(const WaitHandle&) = delete;
  ~WaitHandle() { halo_wait_handle_destroy(handle_); }

  halo_wait_handle_t* get() const noexcept { return handle_; }
  void swap(WaitHandle& other) noexcept { std::swap(handle_, other.handle_); }
  explicit operator bool() const noexcept { return handle_ != nullptr; }
  // The fd to poll for POLLIN; owned by the handle.
  int fd() const noexcept { return halo_wait_handle_fd(handle_); }
  // True once reached; throws the failure once one failed; false before.
  bool ready() const {
    bool ready = false;
    check(halo_wait_handle_status(handle_, &ready));
    return ready;
  }

 private:
  halo_wait_handle_t* handle_ = nullptr;
};

// A set of (semaphore, value) timepoints over any devices and plugins
// (halo/fence.h). Copies share one fence.
class Fence : public Ref<halo_fence_t, halo_fence_retain, halo_fence_release> {
 public:
  using Ref::Ref;

  // A new, empty fence.
  static Fence create() {
    halo_fence_t* fence = nullptr;
    check(halo_fence_create(&fence));
    return Fence(fence);
  }
  // A new fence holding the one timepoint (|semaphore|, |value|).
  static Fence at(const Semaphore& semaphore, std::uint64_t value) {
    Fence fence = create();
    fence.insert(semaphore, value);
    return fence;
  }

  // Adds a timepoint, keeping the larger value for a semaphore held already.
  const Fence& insert(const Semaphore& semaphore, std::uint64_t value) const {
    check(halo_fence_insert(get(), semaphore.get(), value));
    return *this;
  }
  // Adds every timepoint of |other|.
  const Fence& join(const Fence& other) const {
    check(halo_fence_join(get(), other.get()));
    return *this;
  }
  // The timepoints, in insertion order.
  std::vector<std::pair<Semaphore, std::uint64_t>> timepoints() const {
    std::size_t count = 0;
    check(halo_fence_timepoints(get(), 0, nullptr, nullptr, &count));
    std::vector<halo_semaphore_t*> semaphores(count);
    std::vector<std::uint64_t> values(count);
    check(halo_fence_timepoints(get(), count, semaphores.data(), values.data(), &count));
    std::vector<std::pair<Semaphore, std::uint64_t>> result;
    for (std::size_t i = 0; i < std::min(count, semaphores.size()); ++i) {
      result.emplace_back(Semaphore(retain_ref, semaphores[i]), values[i]);
    }
    return result;
  }
  // True once every timepoint is reached; throws a member's failure.
  bool reached() const {
    bool reached = false;
    check(halo_fence_query(get(), &reached));
    return reached;
  }
  // True once reached, false when |deadline| passes first; throws on
  // failure. The default deadline blocks.
  bool wait(halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_fence_wait(get(), deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }
  // Signals every timepoint from the host.
  void signal() const { check(halo_fence_signal(get())); }
  // A pollable handle for the timepoints held now.
  WaitHandle wait_handle() const {
    halo_wait_handle_t* handle = nullptr;
    check(halo_fence_create_wait_handle(get(), &handle));
    return WaitHandle(handle);
  }
};

inline Fence Semaphore::reached(std::uint64_t value) const { return Fence::at(*this, value); }

}  // namespace halo

#endif  // HALO_FENCE_HPP_
