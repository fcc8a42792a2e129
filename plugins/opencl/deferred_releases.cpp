#include "deferred_releases.hpp"

#include <cstring>
#include <utility>

namespace halo::cl {

DeferredReleases::~DeferredReleases() {
  release_all();
  host_.deallocate(events_.items);
  host_.deallocate(taken_.items);
}

bool DeferredReleases::append(cl_event event) noexcept {
  if (events_.count == events_.capacity) {
    const size_t capacity =
        events_.capacity == 0 ? kInitialCapacity : events_.capacity * 2;
    void* memory =
        host_.allocate(capacity * sizeof(cl_event), alignof(cl_event));
    if (memory == nullptr) return false;
    auto* items = static_cast<cl_event*>(memory);
    if (events_.count != 0) {
      std::memcpy(items, events_.items, events_.count * sizeof(cl_event));
    }
    host_.deallocate(events_.items);
    events_.items = items;
    events_.capacity = capacity;
  }
  events_.items[events_.count++] = event;
  return true;
}

void DeferredReleases::defer(cl_event event) noexcept {
  if (event == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (append(event)) {
      pending_.store(true, std::memory_order_release);
      return;
    }
  }
  api_->clReleaseEvent(event);
}

void DeferredReleases::release_all() noexcept {
  if (!pending_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> releasing(releasing_);
  {
    // The worker keeps deferring into the other array meanwhile.
    std::lock_guard<std::mutex> lock(mutex_);
    std::swap(events_, taken_);
    pending_.store(false, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < taken_.count; ++i)
    api_->clReleaseEvent(taken_.items[i]);
  taken_.count = 0;
}

}  // namespace halo::cl
