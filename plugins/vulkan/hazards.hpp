// Which recorded commands need a pipeline barrier between them.
//
// halo orders the commands of a command buffer as recorded (every plugin
// runs them so, and the cpu plugin literally one after another), while
// Vulkan may overlap them. The tracker remembers the buffer ranges touched
// since the last barrier and asks for a barrier before a command whose
// ranges conflict with them (read after write, write after read or write),
// so independent commands still overlap and dependent ones are ordered,
// with the memory dependency that synchronization validation expects.
#ifndef HALO_VULKAN_HAZARDS_HPP_
#define HALO_VULKAN_HAZARDS_HPP_

#include <cstdint>
#include <vector>

#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Access {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool write = false;
};

class HazardTracker {
 public:
  explicit HazardTracker(sdk::Host host)
      : accesses_(sdk::HostAllocator<Access>(host)) {}

  // Returns true when |access| conflicts with an access since the last
  // barrier.
  bool conflicts(const Access& access) const noexcept {
    for (const Access& earlier : accesses_) {
      if (earlier.buffer != access.buffer) continue;
      if (!earlier.write && !access.write) continue;
      if (earlier.offset < access.offset + access.length &&
          access.offset < earlier.offset + earlier.length) {
        return true;
      }
    }
    return false;
  }
  // Records |access|. Throws std::bad_alloc.
  void add(const Access& access) { accesses_.push_back(access); }
  // Forgets everything: a barrier was recorded.
  void clear() noexcept { accesses_.clear(); }
  bool empty() const noexcept { return accesses_.empty(); }
  // True when any write was recorded since the last clear.
  bool any_write() const noexcept {
    for (const Access& access : accesses_) {
      if (access.write) return true;
    }
    return false;
  }

 private:
  std::vector<Access, sdk::HostAllocator<Access>> accesses_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_HAZARDS_HPP_
