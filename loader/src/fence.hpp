// The fence (halo/fence.h): libhalo's own object, a set of timepoints over
// semaphores of any devices and plugins. Each semaphore appears once, at the
// largest value inserted for it, retained by the fence; entries are only
// added, so a semaphore the fence hands out stays valid while it lives.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "halo/fence.h"
#include "halo/object.h"

namespace halo::loader {

// One (semaphore, value) pair of a fence.
struct FenceTimepoint {
  halo_semaphore_t* semaphore;
  uint64_t value;
};

// Standard layout, the header first: check_object reads it as any object.
struct Fence {
  halo_object_t header;
  std::mutex mutex;
  // Guarded by |mutex|; each semaphore retained once.
  std::vector<FenceTimepoint> timepoints;

  static const halo_object_vtable_t kVtable;

  Fence() noexcept;
  ~Fence();
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  static Fence* cast(halo_fence_t* fence) noexcept {
    return reinterpret_cast<Fence*>(fence);
  }
  halo_fence_t* handle() noexcept {
    return reinterpret_cast<halo_fence_t*>(this);
  }

  // Adds (|semaphore|, |value|) or raises the semaphore's value. The
  // arguments are checked. Throws std::bad_alloc with the fence unchanged.
  void insert(halo_semaphore_t* semaphore, uint64_t value);
  // The timepoints as they stand. Throws std::bad_alloc.
  std::vector<FenceTimepoint> snapshot();
};

// Splits |timepoints| into the parallel arrays a submission or a
// multi-semaphore wait takes. Throws std::bad_alloc.
struct TimepointLists {
  std::vector<halo_semaphore_t*> semaphores;
  std::vector<uint64_t> values;

  explicit TimepointLists(const std::vector<FenceTimepoint>& timepoints);
};

}  // namespace halo::loader
