#include "halo/sdk/returned_allocations.hpp"

#include <new>

namespace halo::sdk {

void ReturnedAllocations::give_back(void* memory) noexcept {
  if (memory == nullptr) return;
  if (count_.fetch_add(1, std::memory_order_relaxed) >= kCapacity) {
    count_.fetch_sub(1, std::memory_order_relaxed);
    host_.deallocate(memory);
    return;
  }
  Block* block = ::new (memory) Block{head_.load(std::memory_order_relaxed)};
  // Release: the thread that takes the block frees memory this thread was
  // the last to write.
  while (!head_.compare_exchange_weak(block->next, block,
                                      std::memory_order_release,
                                      std::memory_order_relaxed)) {
  }
}

void ReturnedAllocations::free_all() noexcept {
  if (head_.load(std::memory_order_relaxed) == nullptr) return;
  Block* block = head_.exchange(nullptr, std::memory_order_acquire);
  size_t freed = 0;
  while (block != nullptr) {
    Block* next = block->next;
    host_.deallocate(block);
    block = next;
    ++freed;
  }
  count_.fetch_sub(freed, std::memory_order_relaxed);
}

}  // namespace halo::sdk
