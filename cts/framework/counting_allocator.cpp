#include "counting_allocator.hpp"

#include <cstddef>
#include <cstdlib>

namespace halo::cts {
namespace {

// Plain integers without destructors: a plugin may allocate on a thread
// that is exiting, after its C++ thread-locals are gone.
thread_local uint64_t t_allocations = 0;
thread_local uint64_t t_frees = 0;

void* allocate(void*, size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  // aligned_alloc wants a size that is a multiple of the alignment (and
  // sanitizers hold it to that); a request of 0 bytes still gets memory.
  if (size == 0) size = 1;
  if (size > SIZE_MAX - (alignment - 1)) return nullptr;
  size = (size + alignment - 1) & ~(alignment - 1);
  void* pointer = std::aligned_alloc(alignment, size);
  if (pointer != nullptr) ++t_allocations;
  return pointer;
}

void free_memory(void*, void* pointer) {
  if (pointer == nullptr) return;
  ++t_frees;
  std::free(pointer);
}

constexpr halo_allocator_t kCountingAllocator = {
    sizeof(halo_allocator_t), 0, nullptr, &allocate, &free_memory};

}  // namespace

const halo_allocator_t* counting_allocator() { return &kCountingAllocator; }

AllocationCounts thread_allocation_counts() {
  return AllocationCounts{t_allocations, t_frees};
}

}  // namespace halo::cts
