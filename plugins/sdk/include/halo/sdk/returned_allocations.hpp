// Host allocations a queue's completion thread is done with, freed by the
// next thread that submits instead of by the completion thread.
//
// A submission is allocated on the application's thread and finished on
// the queue's thread. With glibc's malloc, freeing a block on a thread
// other than the one that allocated it takes the lock of the allocating
// thread's arena once the freeing thread's small cache of that size is
// full, which for a completion thread is always: it frees, and never
// allocates, submissions. On NVIDIA's OpenCL the application's thread
// allocates inside every enqueue, in that same arena, and it then slept on
// that lock (bench/README.md, "Where a chain link's host time goes"). Given
// back, each block is freed by a submitting thread, which allocates the
// next submission from what it just freed; or by the queue's own thread
// once the queue has been idle a while (CompletionWorker::IdleFunction), so
// that a queue nobody submits to keeps none.
#ifndef HALO_SDK_RETURNED_ALLOCATIONS_HPP_
#define HALO_SDK_RETURNED_ALLOCATIONS_HPP_

#include <atomic>
#include <cstddef>

#include "halo/sdk/host.hpp"

namespace halo::sdk {

class ReturnedAllocations {
 public:
  explicit ReturnedAllocations(Host host) noexcept : host_(host) {}
  ~ReturnedAllocations() { free_all(); }
  ReturnedAllocations(const ReturnedAllocations&) = delete;
  ReturnedAllocations& operator=(const ReturnedAllocations&) = delete;

  // Takes |memory| (from host.allocate, at least a pointer's size and
  // alignment; may be NULL) to free later; frees it at once when kCapacity
  // blocks wait already (nobody has submitted since). Thread-safe,
  // lock-free.
  void give_back(void* memory) noexcept;
  // Frees every block given back; one atomic load when there is none.
  // Thread-safe, lock-free.
  void free_all() noexcept;
  // Whether no block waits. Lock-free.
  bool empty() const noexcept {
    return head_.load(std::memory_order_relaxed) == nullptr;
  }

 private:
  // Bounds the memory kept while nobody submits and the queue's thread,
  // still busy, has not freed it yet.
  static constexpr size_t kCapacity = 256;

  // The first bytes of a block given back.
  struct Block {
    Block* next;
  };

  const Host host_;
  // A stack pushed by give_back and taken whole by free_all, so no block is
  // ever popped alone (no ABA).
  std::atomic<Block*> head_{nullptr};
  std::atomic<size_t> count_{0};
};

}  // namespace halo::sdk

#endif  // HALO_SDK_RETURNED_ALLOCATIONS_HPP_
