#include "deferred_releases.hpp"

namespace halo::cl {

void DeferredReleases::defer(cl_event event) noexcept {
  if (event == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_ < kCapacity) {
      events_[count_++] = event;
      pending_.store(true, std::memory_order_release);
      return;
    }
  }
  api_->clReleaseEvent(event);
}

void DeferredReleases::release_all() noexcept {
  if (!pending_.load(std::memory_order_acquire)) return;
  std::array<cl_event, kCapacity> taken;
  size_t count;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count = count_;
    for (size_t i = 0; i < count; ++i) taken[i] = events_[i];
    count_ = 0;
    pending_.store(false, std::memory_order_relaxed);
  }
  // Outside the lock: the worker may defer more meanwhile.
  for (size_t i = 0; i < count; ++i) api_->clReleaseEvent(taken[i]);
}

}  // namespace halo::cl
