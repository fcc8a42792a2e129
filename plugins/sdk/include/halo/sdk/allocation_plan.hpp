// Lays several arrays out behind an object in one allocation, so that an
// object with lists of any length (a queue submission) costs one call to
// the host allocator.
#ifndef HALO_SDK_ALLOCATION_PLAN_HPP_
#define HALO_SDK_ALLOCATION_PLAN_HPP_

#include <cstddef>
#include <limits>
#include <new>

namespace halo::sdk {

class AllocationPlan {
 public:
  // The object itself takes the first |object_size| bytes.
  explicit AllocationPlan(size_t object_size) noexcept : total_(object_size) {}

  // Appends an array of |count| T, aligned for T; returns its offset.
  // Throws std::bad_alloc for absurd counts (the total stays below a
  // quarter of the address space).
  template <class T>
  size_t reserve(size_t count) {
    constexpr size_t kLimit = std::numeric_limits<size_t>::max() / 4;
    if (count > kLimit / sizeof(T)) throw std::bad_alloc();
    size_t start = (total_ + alignof(T) - 1) & ~(alignof(T) - 1);
    if (start > kLimit - count * sizeof(T)) throw std::bad_alloc();
    total_ = start + count * sizeof(T);
    return start;
  }

  size_t total() const noexcept { return total_; }

 private:
  size_t total_;
};

// The array at |offset| of the allocation at |base|.
template <class T>
T* plan_at(void* base, size_t offset) noexcept {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

}  // namespace halo::sdk

#endif  // HALO_SDK_ALLOCATION_PLAN_HPP_
