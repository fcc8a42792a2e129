// The semaphores of the device with pending timepoints, which the
// notification thread sleeps on and whose shadows it brings up to date.
#include "device.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::vk {

void Queue::watch(Semaphore* semaphore) noexcept {
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    if (semaphore->watched.load(std::memory_order_relaxed)) return;
    try {
      watched_.push_back(semaphore);
    } catch (...) {
      host_.log(HALO_LOG_LEVEL_ERROR,
                "queue: out of memory watching a semaphore; its timepoints "
                "fire only on host signals");
      return;
    }
    semaphore->watched.store(true, std::memory_order_relaxed);
    host_.retain(&semaphore->header);
  }
  device_->wake.wake();
}

void Queue::refresh_watched() noexcept {
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    try {
      watch_snapshot_.assign(watched_.begin(), watched_.end());
    } catch (...) {
      watch_snapshot_.clear();
      host_.log(HALO_LOG_LEVEL_ERROR, "queue: out of memory watching");
    }
  }
  // Outside the lock: callbacks may register timepoints (and so watch).
  for (Semaphore* semaphore : watch_snapshot_) semaphore->sync_shadow();
  std::lock_guard<std::mutex> lock(watch_mutex_);
  size_t kept = 0;
  for (Semaphore* semaphore : watched_) {
    if (semaphore->shadow.pending_timepoints() != 0) {
      watched_[kept++] = semaphore;
      continue;
    }
    semaphore->watched.store(false, std::memory_order_relaxed);
    semaphore->next_dropped = dropped_head_;
    dropped_head_ = semaphore;
  }
  watched_.resize(kept);
}

}  // namespace halo::vk
