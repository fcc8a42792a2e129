// The cpu command buffer: a recorded list of commands that the queue's
// worker runs one after another, which is the command contract's recording
// order with nothing to track (a dispatch's workgroups run in parallel, two
// commands never). Every argument is checked at record time (with the
// shared rules of halo/sdk/commands.hpp), so running cannot fail.
#ifndef HALO_CPU_COMMAND_BUFFER_HPP_
#define HALO_CPU_COMMAND_BUFFER_HPP_

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "entry_point.hpp"
#include "halo/command_buffer.h"
#include "halo/device.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "worker_pool.hpp"

namespace halo::cpu {

template <class T>
using HostVector = std::vector<T, sdk::HostAllocator<T>>;

// Commands hold resolved addresses: a buffer's memory never moves, and the
// command buffer retains every buffer and executable it names.
struct FillCommand {
  uint8_t* target;
  uint64_t length;
  uint8_t pattern[4];
  uint32_t pattern_length;
};

struct UpdateCommand {
  uint8_t* target;
  uint64_t length;
  // Index of the first word of the copied bytes in CommandBuffer::words.
  size_t source_word;
};

struct CopyCommand {
  const uint8_t* source;
  uint8_t* target;
  uint64_t length;
};

struct DispatchCommand {
  const EntryPoint* entry_point;
  uint32_t workgroup_count[3];
  uint64_t workgroups;
  // Index of the first binding address in CommandBuffer::pointers.
  size_t first_binding;
  // Index of the first word of the constants in CommandBuffer::words.
  size_t constants_word;
};

// Barriers record nothing: commands already run one after another on one
// thread, and a dispatch returns only once all its workgroups are done.
using Command =
    std::variant<FillCommand, UpdateCommand, CopyCommand, DispatchCommand>;

// A command buffer object; the header comes first so handle and object
// share an address. Recording is single-threaded (as in Vulkan); once
// ended, the recorded state is only read.
struct CommandBuffer {
  halo_object_t header;
  sdk::Host host;
  // The device, retained: a command buffer is an object of its device.
  halo_device_t* device;
  sdk::RecordingState recording;
  HostVector<Command> commands;
  // Update data and dispatch constants, 8-byte aligned so constants can be
  // read in place.
  HostVector<uint64_t> words;
  // Dispatch binding addresses.
  HostVector<void*> pointers;
  // Buffers and executables the commands name, one reference each.
  HostVector<halo_object_t*> retained;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_command_buffer_vtable_t kVtable;

  CommandBuffer(sdk::Host host, halo_device_t* device,
                halo_command_buffer_mode_t mode) noexcept;
  ~CommandBuffer();

  // Creates a command buffer of |device| (borrowed; retained) in |mode|.
  // Returns a new reference in |out_command_buffer|; INVALID_ARGUMENT when
  // |mode| is not exactly one of ONE_SHOT and REUSABLE. Thread-safe.
  static halo_status_t create(sdk::Host host, halo_device_t* device,
                              halo_command_buffer_mode_t mode,
                              halo_command_buffer_t** out_command_buffer) noexcept;

  // Runs the recorded commands in order; dispatches go to |pool|.
  void run(WorkerPool& pool) const noexcept;

  // Returns the cpu command buffer behind |command_buffer|, or NULL for
  // another plugin's.
  static CommandBuffer* from(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_from<CommandBuffer>(command_buffer);
  }
  static CommandBuffer* cast(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_cast<CommandBuffer>(command_buffer);
  }
  halo_command_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_command_buffer_t*>(this);
  }
};

// Checks the |count| command buffers of a submission to |device| and
// acquires them for submission: each must be a cpu command buffer of
// |device| (INVALID_ARGUMENT) that has ended and, when ONE_SHOT, was not
// submitted before (FAILED_PRECONDITION). On failure every earlier
// acquisition is given back, so the submission leaves no trace. Borrows
// everything. Thread-safe.
halo_status_t acquire_command_buffers(
    sdk::Host host, halo_device_t* device, size_t count,
    halo_command_buffer_t* const* command_buffers) noexcept;

// Gives back the acquisitions of acquire_command_buffers when the
// submission could not be made after all.
void release_unsubmitted(size_t count,
                         halo_command_buffer_t* const* command_buffers) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_COMMAND_BUFFER_HPP_
