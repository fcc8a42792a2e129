// The fence object: its timepoint set and reference counting.
#include "fence.hpp"

#include "object_refs.hpp"

namespace halo::loader {
namespace {

void destroy_fence(halo_object_t* object) {
  delete reinterpret_cast<Fence*>(object);
}

}  // namespace

const halo_object_vtable_t Fence::kVtable = {
    .struct_size = sizeof(halo_object_vtable_t),
    .type = HALO_OBJECT_TYPE_FENCE,
    .destroy = &destroy_fence,
};

Fence::Fence() noexcept : header(HALO_OBJECT_HEADER_INIT(&kVtable)) {}

Fence::~Fence() {
  for (const FenceTimepoint& timepoint : timepoints) {
    release_object(reinterpret_cast<halo_object_t*>(timepoint.semaphore));
  }
}

void Fence::insert(halo_semaphore_t* semaphore, uint64_t value) {
  std::lock_guard<std::mutex> lock(mutex);
  // A linear search: fences join a handful of semaphores, and a vector
  // keeps insertion order for the lists a submission takes.
  for (FenceTimepoint& timepoint : timepoints) {
    if (timepoint.semaphore == semaphore) {
      if (value > timepoint.value) timepoint.value = value;
      return;
    }
  }
  timepoints.push_back({semaphore, value});
  retain_object(reinterpret_cast<halo_object_t*>(semaphore));
}

std::vector<FenceTimepoint> Fence::snapshot() {
  std::lock_guard<std::mutex> lock(mutex);
  return timepoints;
}

TimepointLists::TimepointLists(const std::vector<FenceTimepoint>& timepoints) {
  semaphores.reserve(timepoints.size());
  values.reserve(timepoints.size());
  for (const FenceTimepoint& timepoint : timepoints) {
    semaphores.push_back(timepoint.semaphore);
    values.push_back(timepoint.value);
  }
}

}  // namespace halo::loader
