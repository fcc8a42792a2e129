// The cuda command buffer: commands recorded on the host and replayed as
// asynchronous operations on the device's stream at each submission.
//
// Commands take effect in recording order (command_buffer.h). The stream
// runs its operations one after another, so recording order is kept with
// no tracking at all, and a barrier records nothing. Each dispatch keeps its
// launch arguments (buffer addresses and constants) in storage of its own,
// built at record time, so a replay is one cuLaunchKernel and concurrent
// submissions of one command buffer share nothing mutable.
#ifndef HALO_CUDA_COMMAND_BUFFER_HPP_
#define HALO_CUDA_COMMAND_BUFFER_HPP_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "cuda_library.hpp"
#include "halo/command_buffer.h"
#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cuda {

struct Buffer;
struct Device;

// One recorded command. Buffers and executables it names are retained by
// the command buffer; |data| and |arguments| are owned.
struct Command {
  enum class Kind : uint8_t { kFill, kUpdate, kCopy, kDispatch };
  Kind kind = Kind::kFill;
  uint8_t pattern_length = 0;
  uint32_t pattern = 0;
  CUdeviceptr target = 0;
  CUdeviceptr source = 0;
  uint64_t length = 0;
  // kUpdate: the bytes, copied at record time.
  void* data = nullptr;
  // kDispatch: the function, grid and block, and the kernelParams array
  // cuLaunchKernel reads (pointers into the same allocation).
  CUfunction function = nullptr;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  void** arguments = nullptr;
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

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_command_buffer_vtable_t kVtable;

  CommandBuffer(Device* device, halo_command_buffer_mode_t mode);
  ~CommandBuffer();

  // Creates a command buffer of |device| (retained). Returns a new
  // reference in |out|; INVALID_ARGUMENT for a bad |mode|.
  static halo_status_t create(Device* device, halo_command_buffer_mode_t mode,
                              halo_command_buffer_t** out) noexcept;

  // Returns the command buffer when |command_buffer| is a cuda command
  // buffer, else NULL.
  static CommandBuffer* from(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_from<CommandBuffer>(command_buffer);
  }
  static CommandBuffer* cast(halo_command_buffer_t* command_buffer) noexcept {
    return sdk::object_cast<CommandBuffer>(command_buffer);
  }
  halo_command_buffer_t* handle() noexcept {
    return reinterpret_cast<halo_command_buffer_t*>(this);
  }

  // Issues every command on |stream| (the device's context current).
  // Returns the failing CUDA call's status; commands issued before it stay
  // issued.
  halo_status_t issue(CUstream stream) const noexcept;

  // Records a dispatch after checking |params| (command_dispatch.cpp).
  halo_status_t record_dispatch(const halo_dispatch_params_t& params) noexcept;

  // Returns |buffer| as a cuda buffer of this command buffer's device in
  // |*out|, or INVALID_ARGUMENT naming |function| and |argument|.
  halo_status_t own_buffer(halo_buffer_t* buffer, const char* function,
                           const char* argument, Buffer** out) const noexcept;
  // Appends |command| and retains |objects| (NULL entries skipped). Throws
  // std::bad_alloc without appending; the command's owned parts are then
  // still the caller's.
  void append(const Command& command,
              std::initializer_list<halo_object_t*> objects);
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_COMMAND_BUFFER_HPP_
