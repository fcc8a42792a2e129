// What each command buffer of a validating registry does to buffers, recorded
// by the halo_command_buffer_* wrappers, so that a submission knows the
// ranges its work reads and writes (host access hazards).
#pragma once

#include <cstdint>
#include <vector>

#include "halo/buffer.h"
#include "halo/command_buffer.h"

namespace halo::loader::validation {

// One range of one buffer that a command reads or writes. [offset, end).
struct BufferAccess {
  const halo_buffer_t* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t end = 0;
  bool writes = false;
};

// The end of [|offset|, |offset| + |length|) of |buffer|, HALO_WHOLE_BUFFER
// resolved against its size; saturated rather than wrapped (validation does
// not rely on the plugin having checked the range).
uint64_t range_end(halo_buffer_t* buffer, uint64_t offset,
                   uint64_t length) noexcept;

// Called by halo_command_buffer_begin once the plugin began recording:
// a command buffer starts empty.
void on_begin(halo_command_buffer_t* command_buffer) noexcept;

// Called by the fill, update, copy and dispatch wrappers once the plugin
// recorded the command: |length| may be HALO_WHOLE_BUFFER.
void on_access(halo_command_buffer_t* command_buffer, halo_buffer_t* buffer,
               uint64_t offset, uint64_t length, bool writes) noexcept;
void on_dispatch(halo_command_buffer_t* command_buffer,
                 const halo_dispatch_params_t& params) noexcept;

// Appends the accesses recorded in |command_buffer| to |accesses|. Throws
// only std::bad_alloc.
void append_accesses(const halo_command_buffer_t* command_buffer,
                     std::vector<BufferAccess>* accesses);

// Forgets |command_buffer| (released).
void forget_command_buffer(const void* command_buffer) noexcept;

}  // namespace halo::loader::validation
