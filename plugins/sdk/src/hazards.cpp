#include "halo/sdk/hazards.hpp"

#include <algorithm>

namespace halo::sdk {
namespace {

// The keys of aliased memory (see hazards.hpp): addresses, never objects.
constexpr char kHostMemory = 'h';
constexpr char kSharedMemory = 's';

}  // namespace

BufferAccess host_memory_access(const void* address, uint64_t length,
                                bool write) noexcept {
  return {&kHostMemory, reinterpret_cast<uintptr_t>(address), length, write};
}

BufferAccess shared_memory_access(bool write) noexcept {
  return {&kSharedMemory, 0, UINT64_MAX, write};
}

halo_status_t check_copy_aliases(Host host, const BufferAccess& source,
                                 const BufferAccess& target) noexcept {
  if (source.buffer != &kHostMemory || target.buffer != &kHostMemory ||
      source.offset >= target.offset + target.length ||
      target.offset >= source.offset + source.length) {
    return HALO_OK;
  }
  const uint64_t overlap =
      std::min(source.offset + source.length, target.offset + target.length) -
      std::max(source.offset, target.offset);
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "halo_command_buffer_copy: source and target share "
                          "host memory, and %llu of the bytes copied overlap",
                          static_cast<unsigned long long>(overlap));
}

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
