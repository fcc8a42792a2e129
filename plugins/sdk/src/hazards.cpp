#include "halo/sdk/hazards.hpp"

namespace halo::sdk {

bool HazardTracker::conflicts(const BufferAccess& access) const noexcept {
  if (access.length == 0) return false;
  for (const BufferAccess& earlier : accesses_) {
    if (earlier.buffer != access.buffer) continue;
    if (!earlier.write && !access.write) continue;
    if (earlier.offset < access.offset + access.length &&
        access.offset < earlier.offset + earlier.length) {
      return true;
    }
  }
  return false;
}

bool HazardTracker::conflicts(const BufferAccess* accesses,
                              size_t count) const noexcept {
  for (size_t i = 0; i < count; ++i) {
    if (conflicts(accesses[i])) return true;
  }
  return false;
}

void HazardTracker::add(const BufferAccess* accesses, size_t count) {
  accesses_.reserve(accesses_.size() + count);
  for (size_t i = 0; i < count; ++i) {
    if (accesses[i].length != 0) accesses_.push_back(accesses[i]);
  }
}

}  // namespace halo::sdk
