// The host allocator halo-cts creates its registries with: it forwards to
// the system and counts, per thread, what the plugins allocate and free
// through it, so that a case can check that a call makes no allocation
// (DESIGN.md §8: signal, poll-wait, query). Counting per thread keeps a
// plugin's own threads (workers, completion threads) out of a case's count.
#pragma once

#include <cstdint>

#include "halo/allocator.h"

namespace halo::cts {

struct AllocationCounts {
  uint64_t allocations = 0;
  uint64_t frees = 0;
};

// The counting allocator; static, valid for the whole process.
const halo_allocator_t* counting_allocator();

// What the counting allocator has seen on the calling thread so far.
AllocationCounts thread_allocation_counts();

// Counts the calling thread's allocations from its construction on.
class AllocationWindow {
 public:
  AllocationWindow() : start_(thread_allocation_counts()) {}
  uint64_t allocations() const {
    return thread_allocation_counts().allocations - start_.allocations;
  }
  uint64_t frees() const { return thread_allocation_counts().frees - start_.frees; }

 private:
  AllocationCounts start_;
};

}  // namespace halo::cts
