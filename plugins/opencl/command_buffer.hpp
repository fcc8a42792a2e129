// The opencl command buffer: commands recorded on the host and replayed as
// enqueues on the device's queue at each submission.
//
// Commands take effect in recording order (command_buffer.h). Commands
// between two barriers run concurrently on an out-of-order queue, so a
// command that conflicts with one since the last barrier gets a barrier
// recorded before it (sdk::HazardTracker); a barrier makes every later
// command wait for every earlier one, through event wait lists. Each
// dispatch records its own kernel object with its arguments already set
// (a clone of the executable's, or a fresh one before OpenCL 2.1), so that
// replays never call clSetKernelArg and concurrent submissions of one
// command buffer never race on arguments.
#ifndef HALO_OPENCL_COMMAND_BUFFER_HPP_
#define HALO_OPENCL_COMMAND_BUFFER_HPP_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "cl_library.hpp"
#include "event_list.hpp"
#include "halo/command_buffer.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/hazards.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cl {

struct Buffer;
struct Device;

// One recorded command. Buffers and executables it names are retained by
// the command buffer; |data| and |kernel| are owned.
struct Command {
  enum class Kind : uint8_t { kBarrier, kFill, kUpdate, kCopy, kDispatch };
  Kind kind = Kind::kBarrier;
  uint8_t pattern_length = 0;
  uint32_t pattern = 0;
  cl_mem target = nullptr;
  cl_mem source = nullptr;
  uint64_t offset = 0;
  uint64_t source_offset = 0;
  uint64_t length = 0;
  // kUpdate: the bytes, copied at record time.
  void* data = nullptr;
  // kDispatch: a kernel of its own with every argument set.
  cl_kernel kernel = nullptr;
  size_t global[3] = {};
  size_t local[3] = {};
};

// A command buffer object; the header comes first.
struct CommandBuffer {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The creating device, retained.
  Device* device;
  sdk::RecordingState recording;
  std::vector<Command, sdk::HostAllocator<Command>> commands;
  // Buffers and executables the commands name, one reference each.
  std::vector<halo_object_t*, sdk::HostAllocator<halo_object_t*>> retained;
  // The imported device memory the commands name (Buffer::external), each
  // once: a submission acquires it before its commands and releases it
  // once they completed (submission.hpp).
  std::vector<cl_mem, sdk::HostAllocator<cl_mem>> external_memory;
  // Commands that enqueue something (not barriers, not empty ones).
  size_t enqueue_count = 0;
  // What the commands since the last barrier touch.
  sdk::HazardTracker hazards;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_command_buffer_vtable_t kVtable;

  CommandBuffer(Device* device, halo_command_buffer_mode_t mode);
  ~CommandBuffer();

  // Creates a command buffer of |device| (retained). Returns a new
  // reference in |out_command_buffer|; INVALID_ARGUMENT for a bad |mode|.
  static halo_status_t create(Device* device, halo_command_buffer_mode_t mode,
                              halo_command_buffer_t** out) noexcept;

  // Returns the command buffer when |command_buffer| is an opencl command
  // buffer, else NULL.
  static CommandBuffer* from(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_from<CommandBuffer>(command_buffer);
  }

  // Enqueues every command on |queue|. The first commands wait on |*deps|;
  // on return |*deps| holds the events that later work must wait on to
  // follow every command. Called by submissions; never blocks. Returns the
  // failing OpenCL call's status (commands already enqueued then wait on
  // whatever |*deps| held, which the caller fails).
  halo_status_t enqueue(cl_command_queue queue, EventList* deps) const;

  // Records a dispatch after checking |params| (command_dispatch.cpp).
  halo_status_t record_dispatch(const halo_dispatch_params_t& params) noexcept;
  // Checks every binding of |params| (whose count matches the entry
  // point's); stores each binding's buffer and resolved length.
  halo_status_t check_bindings(const halo_dispatch_params_t& params,
                               Buffer** buffers,
                               uint64_t* lengths) const noexcept;

  // Returns |buffer| as an opencl buffer of this command buffer's context
  // in |*out|, or INVALID_ARGUMENT naming |function| and |argument|.
  halo_status_t own_buffer(halo_buffer_t* buffer, const char* function,
                           const char* argument, Buffer** out) const noexcept;
  // Appends |command|, after a barrier when |accesses| conflict with the
  // commands since the last one, and retains |objects| (NULL entries
  // skipped). Throws std::bad_alloc without appending |command| (a barrier
  // may be left, which changes no result); the command's owned parts are
  // then still the caller's.
  void append(const Command& command,
              std::initializer_list<halo_object_t*> objects,
              const sdk::BufferAccess* accesses = nullptr,
              size_t access_count = 0);
  void append_barrier();

  static CommandBuffer* cast(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_cast<CommandBuffer>(command_buffer);
  }
  halo_command_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_command_buffer_t*>(this);
  }
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_COMMAND_BUFFER_HPP_
