// The per-device pool of wait records.
#include "wait_record_pool.hpp"

#include <new>

namespace halo::cl {

WaitRecordPool::~WaitRecordPool() {
  while (free_ != nullptr) {
    WaitRecord* record = free_;
    free_ = record->next;
    host_.destroy(record);
  }
}

WaitRecord* WaitRecordPool::acquire() {
  WaitRecord* record = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_ != nullptr) {
      record = free_;
      free_ = record->next;
      --free_count_;
    }
  }
  if (record == nullptr) {
    record = host_.make<WaitRecord>();
    allocated_.fetch_add(1, std::memory_order_relaxed);
  }
  record->timepoint = halo_timepoint_t{};
  record->submission = nullptr;
  record->semaphore = nullptr;
  record->done.store(0, std::memory_order_relaxed);
  record->next = nullptr;
  return record;
}

void WaitRecordPool::release(WaitRecord* record) noexcept {
  if (record == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_count_ < max_free_) {
      record->next = free_;
      free_ = record;
      ++free_count_;
      return;
    }
  }
  host_.destroy(record);
  allocated_.fetch_sub(1, std::memory_order_relaxed);
}

size_t WaitRecordPool::free_count() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_count_;
}

}  // namespace halo::cl
