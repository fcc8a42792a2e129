// Host allocations a queue's completion thread is done with, reused or
// freed by the next thread that submits instead of freed by the completion
// thread.
//
// A submission is allocated on the application's thread and finished on
// the queue's thread. With glibc's malloc, freeing a block on a thread
// other than the one that allocated it takes the lock of the allocating
// thread's arena once the freeing thread's small cache of that size is
// full, which for a completion thread is always: it frees, and never
// allocates, submissions. On NVIDIA's OpenCL the application's thread
// allocates inside every enqueue, in that same arena, and it then slept on
// that lock (bench/README.md, "Where a chain link's host time goes").
//
// Given back, a block goes to the next submission of the queue that fits
// in it (take), so that a queue in steady use allocates and frees nothing
// per submission: glibc's per-thread cache holds seven blocks of a size,
// and a queue that finishes work in batches returns more at a time, so
// each allocation and free otherwise went through malloc's slow paths
// (bench/README.md, "Host instructions per submission"). A block too small
// for the submission that takes it is freed there. What no submission
// takes is freed by the queue's own thread once the queue has been idle a
// while (CompletionWorker::IdleFunction, free_all), so that a queue nobody
// submits to keeps none.
#ifndef HALO_SDK_RETURNED_ALLOCATIONS_HPP_
#define HALO_SDK_RETURNED_ALLOCATIONS_HPP_

#include <atomic>
#include <cstddef>

#include "halo/sdk/host.hpp"

namespace halo::sdk {

class ReturnedAllocations {
 public:
  // Bounds the blocks waiting in the completion thread's stack (the memory
  // kept while nobody submits and that thread, still busy, has not freed
  // it yet), and the spares.
  static constexpr size_t kCapacity = 256;

  explicit ReturnedAllocations(Host host) noexcept : host_(host) {}
  ~ReturnedAllocations() { free_all(); }
  ReturnedAllocations(const ReturnedAllocations&) = delete;
  ReturnedAllocations& operator=(const ReturnedAllocations&) = delete;

  // Takes |memory| (from host.allocate, |size| bytes, at least two
  // pointers' size and a pointer's alignment; may be NULL) to reuse or free
  // later; frees it at once when kCapacity blocks wait already. Thread-safe,
  // lock-free.
  void give_back(void* memory, size_t size) noexcept;
  // A block given back of at least |size| bytes at |alignment|, now the
  // caller's, its whole size in |out_size|; or NULL (none waits, it is too
  // small, or another thread is taking one: the caller allocates).
  // Thread-safe.
  void* take(size_t size, size_t alignment, size_t* out_size) noexcept;
  // Frees every block given back, unless a take is under way (the queue is
  // in use then). Thread-safe.
  void free_all() noexcept;
  // Whether no block waits. Lock-free.
  bool empty() const noexcept {
    return head_.load(std::memory_order_relaxed) == nullptr &&
           spares_.load(std::memory_order_relaxed) == nullptr;
  }

 private:
  // The first bytes of a block given back.
  struct Block {
    Block* next;
    size_t size;
  };

  // Frees every block of the list at |block|; returns how many.
  size_t free_list(Block* block) noexcept;
  // Cuts the spares after their first |count| (with taking_ held); returns
  // the rest, for the caller to free.
  Block* keep_spares(size_t count) noexcept;

  const Host host_;
  // A stack pushed by give_back and taken whole by take and free_all, so no
  // block is ever popped from it alone (no ABA). Only the holder of
  // taking_ takes it: a take that saw it hold blocks takes them.
  std::atomic<Block*> head_{nullptr};
  // The blocks in head_.
  std::atomic<size_t> count_{0};
  // The blocks taken from head_ and not reused yet, at most kCapacity,
  // popped one at a time by the thread that holds taking_ (a take, or
  // free_all): the completion thread, giving back, never touches them.
  // Atomic only for empty().
  std::atomic_flag taking_;
  std::atomic<Block*> spares_{nullptr};
  size_t spare_count_ = 0;  // Guarded by taking_.
};

}  // namespace halo::sdk

#endif  // HALO_SDK_RETURNED_ALLOCATIONS_HPP_
