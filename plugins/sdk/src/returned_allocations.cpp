#include "halo/sdk/returned_allocations.hpp"

#include <cstdint>
#include <new>

namespace halo::sdk {

void ReturnedAllocations::give_back(void* memory, size_t size) noexcept {
  if (memory == nullptr) return;
  if (count_.fetch_add(1, std::memory_order_relaxed) >= kCapacity) {
    count_.fetch_sub(1, std::memory_order_relaxed);
    host_.deallocate(memory);
    return;
  }
  Block* block =
      ::new (memory) Block{head_.load(std::memory_order_relaxed), size};
  // Release: the thread that takes the block reuses or frees memory this
  // thread was the last to write.
  while (!head_.compare_exchange_weak(block->next, block,
                                      std::memory_order_release,
                                      std::memory_order_relaxed)) {
  }
}

void* ReturnedAllocations::take(size_t size, size_t alignment,
                                size_t* out_size) noexcept {
  // Concurrent submitters do not queue for a block: one allocates instead.
  if (taking_.test_and_set(std::memory_order_acquire)) return nullptr;
  Block* excess = nullptr;
  if (head_.load(std::memory_order_relaxed) != nullptr) {
    // Taken whole whenever a submission comes, so that the completion
    // thread's stack does not fill to kCapacity while the queue is in use:
    // past it, that thread frees what it gives back.
    Block* taken = head_.exchange(nullptr, std::memory_order_acquire);
    size_t count = 1;
    Block* last = taken;
    for (; last->next != nullptr; last = last->next) ++count;
    count_.fetch_sub(count, std::memory_order_relaxed);
    last->next = spares_.load(std::memory_order_relaxed);
    spares_.store(taken, std::memory_order_relaxed);
    spare_count_ += count;
    if (spare_count_ > kCapacity) excess = keep_spares(kCapacity);
  }
  Block* block = spares_.load(std::memory_order_relaxed);
  if (block != nullptr) {
    spares_.store(block->next, std::memory_order_relaxed);
    --spare_count_;
  }
  taking_.clear(std::memory_order_release);
  free_list(excess);
  if (block == nullptr) return nullptr;
  if (block->size < size ||
      reinterpret_cast<uintptr_t>(block) % alignment != 0) {
    // Submissions of another shape than the ones that finished: this block
    // is of no use to the next either.
    host_.deallocate(block);
    return nullptr;
  }
  *out_size = block->size;
  return block;
}

ReturnedAllocations::Block* ReturnedAllocations::keep_spares(
    size_t count) noexcept {
  Block* last = spares_.load(std::memory_order_relaxed);
  for (size_t i = 1; i < count; ++i) last = last->next;
  Block* excess = last->next;
  last->next = nullptr;
  spare_count_ = count;
  return excess;
}

size_t ReturnedAllocations::free_list(Block* block) noexcept {
  size_t freed = 0;
  while (block != nullptr) {
    Block* next = block->next;
    host_.deallocate(block);
    block = next;
    ++freed;
  }
  return freed;
}

void ReturnedAllocations::free_all() noexcept {
  if (empty()) return;
  // A take under way means the queue is in use: what waits is wanted. And
  // only the holder of taking_ empties head_, so that a take that found it
  // holding blocks still finds them when it takes them.
  if (taking_.test_and_set(std::memory_order_acquire)) return;
  Block* given = head_.exchange(nullptr, std::memory_order_acquire);
  Block* spares = spares_.exchange(nullptr, std::memory_order_relaxed);
  spare_count_ = 0;
  taking_.clear(std::memory_order_release);
  count_.fetch_sub(free_list(given), std::memory_order_relaxed);
  free_list(spares);
}

}  // namespace halo::sdk
