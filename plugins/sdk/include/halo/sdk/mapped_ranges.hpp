// The mappings a buffer has open, so that every plugin answers an unmap of a
// range that was never mapped alike (FAILED_PRECONDITION, buffer.h), whether
// or not its native API needs the mapping back.
#ifndef HALO_SDK_MAPPED_RANGES_HPP_
#define HALO_SDK_MAPPED_RANGES_HPP_

#include <cstdint>
#include <mutex>
#include <vector>

#include "halo/sdk/host.hpp"

namespace halo::sdk {

class MappedRanges {
 public:
  // One open mapping; |pointer| is what the plugin needs to end it.
  struct Mapping {
    uint64_t offset = 0;
    uint64_t length = 0;
    void* pointer = nullptr;
  };

  explicit MappedRanges(Host host) : mappings_(HostAllocator<Mapping>(host)) {}

  // Records a mapping. Thread-safe. Throws std::bad_alloc, recording
  // nothing: a plugin whose native map already succeeded ends it again.
  void add(const Mapping& mapping);
  // Removes the mapping of exactly [offset, offset + length) into |*out|.
  // Returns FAILED_PRECONDITION naming |function| when there is none.
  // Thread-safe.
  halo_status_t remove(Host host, const char* function, uint64_t offset,
                       uint64_t length, Mapping* out) noexcept;
  // Removes and returns every open mapping (the buffer is being destroyed).
  // Not thread-safe.
  std::vector<Mapping, HostAllocator<Mapping>>& all() noexcept {
    return mappings_;
  }

 private:
  std::mutex mutex_;
  std::vector<Mapping, HostAllocator<Mapping>> mappings_;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_MAPPED_RANGES_HPP_
