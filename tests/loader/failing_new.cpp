// Replaces the global operator new and delete (every form) so that one chosen
// allocation fails; see failing_new.hpp. Memory comes from malloc, so every
// delete form is free, whichever new made the block.
#include "failing_new.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

// Plain thread_local integers: no dynamic initialisation, usable by the
// very first allocation of every thread.
thread_local long t_failing_index = -1;  // -1: no failure armed.
thread_local long t_allocations = 0;
thread_local bool t_triggered = false;

// Returns NULL for the armed allocation, else |size| bytes from malloc.
void* allocate(std::size_t size, std::size_t alignment) {
  if (t_failing_index >= 0 && t_allocations++ == t_failing_index) {
    t_triggered = true;
    return nullptr;
  }
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  // aligned_alloc wants a multiple of the alignment.
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

void* allocate_or_throw(std::size_t size, std::size_t alignment) {
  void* pointer = allocate(size, alignment);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

constexpr std::size_t kDefault = alignof(std::max_align_t);

}  // namespace

namespace halo_test {

AllocationFailure::AllocationFailure(long failing_index) {
  t_allocations = 0;
  t_triggered = false;
  t_failing_index = failing_index;
}

AllocationFailure::~AllocationFailure() { t_failing_index = -1; }

bool AllocationFailure::triggered() const { return t_triggered; }

}  // namespace halo_test

void* operator new(std::size_t size) { return allocate_or_throw(size, kDefault); }
void* operator new[](std::size_t size) { return allocate_or_throw(size, kDefault); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, kDefault);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, kDefault);
}
void* operator new(std::size_t size, std::align_val_t alignment,
                   const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment,
                     const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}

void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete[](void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { std::free(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::align_val_t) noexcept { std::free(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept {
  std::free(pointer);
}
void operator delete(void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(pointer);
}
