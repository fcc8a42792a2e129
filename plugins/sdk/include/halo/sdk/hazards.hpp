// Which recorded commands must be ordered after which (the command contract
// of command_buffer.h: commands take effect in recording order).
//
// A device that may overlap commands (a GPU queue, an out-of-order OpenCL
// queue) keeps one tracker per command buffer. It remembers the buffer
// ranges touched since the last ordering point and says when a new command
// conflicts with them (read after write, write after read or write); the
// plugin then orders everything before against everything after (a pipeline
// barrier, a wait on the segment's events) and clears the tracker. Commands
// that only read the same bytes, or touch disjoint ranges, keep overlapping.
#ifndef HALO_SDK_HAZARDS_HPP_
#define HALO_SDK_HAZARDS_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "halo/sdk/host.hpp"

namespace halo::sdk {

// One command's use of [offset, offset + length) of a buffer. |buffer| is
// any pointer that identifies the memory (the plugin's buffer object), so
// that two views of one allocation compare equal.
struct BufferAccess {
  const void* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t length = 0;
  bool write = false;
};

// Accesses to memory other buffers may share (external.h, "Aliases"): the
// exporter of a buffer and its imports, or two imports of one allocation.
// Keyed by what every alias has in common instead of the buffer object:
//   host memory (a HOST_ALLOCATION import, or a buffer exported as one) by
//   the addresses of its bytes, so that aliases conflict exactly where
//   they overlap;
//   memory whose sharing a plugin cannot see (an exportable or imported
//   fd) as one range covering everything, so that every such access
//   conflicts with every other that writes.
BufferAccess host_memory_access(const void* address, uint64_t length,
                                bool write) noexcept;
BufferAccess shared_memory_access(bool write) noexcept;

// Refuses a copy whose |source| and |target| accesses are of the same host
// memory and overlap (INVALID_ARGUMENT naming halo_command_buffer_copy), as
// check_copy refuses one within a buffer: native APIs leave a copy between
// overlapping bytes undefined. Shared fd memory, whose bytes a plugin
// cannot compare, passes.
halo_status_t check_copy_aliases(Host host, const BufferAccess& source,
                                 const BufferAccess& target) noexcept;

class HazardTracker {
 public:
  explicit HazardTracker(Host host)
      : accesses_(HostAllocator<BufferAccess>(host)) {}

  // Returns true when |access| conflicts with an access since the last
  // clear.
  bool conflicts(const BufferAccess& access) const noexcept;
  // Returns true when any of |accesses| conflicts.
  bool conflicts(const BufferAccess* accesses, size_t count) const noexcept;
  // Records |accesses|. Throws std::bad_alloc, having recorded none.
  void add(const BufferAccess* accesses, size_t count);
  void add(const BufferAccess& access) { add(&access, 1); }
  // Forgets everything: the plugin ordered what follows after all of it.
  void clear() noexcept { accesses_.clear(); }
  bool empty() const noexcept { return accesses_.empty(); }

 private:
  std::vector<BufferAccess, HostAllocator<BufferAccess>> accesses_;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_HAZARDS_HPP_
