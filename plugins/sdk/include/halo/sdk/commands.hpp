// Argument checks shared by every plugin's buffers and command buffers, so
// that the same bad call gets the same status code from every plugin (the
// CTS asserts the codes) and a message naming the call and the argument.
// The checks enforce the rules that buffer.h and command_buffer.h state.
#ifndef HALO_SDK_COMMANDS_HPP_
#define HALO_SDK_COMMANDS_HPP_

#include <atomic>
#include <cstdint>

#include "halo/buffer.h"
#include "halo/command_buffer.h"
#include "halo/device.h"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/status.hpp"  // HALO_SDK_RETURN_IF_ERROR, for its users.

namespace halo::sdk {

// What the checks need to know of a buffer.
struct BufferFacts {
  uint64_t size = 0;
  halo_buffer_usage_t usage = 0;
  halo_memory_type_t memory_type = 0;
};

// Checks allocation parameters against the device's capabilities; messages
// name |function| (halo_buffer_import passes its own).
halo_status_t check_buffer_params(
    Host host, const halo_device_capabilities_t &caps,
    const halo_buffer_params_t &params,
    const char *function = "halo_buffer_allocate") noexcept;

// Resolves HALO_WHOLE_BUFFER in |*length| and checks [offset, offset +
// *length) lies within |size|. |function| and |argument| name the call and
// the buffer in the message.
halo_status_t resolve_range(Host host, const char *function,
                            const char *argument, uint64_t size,
                            uint64_t offset, uint64_t *length) noexcept;

// Checks that |buffer| is HOST_VISIBLE (FAILED_PRECONDITION) and that
// [offset, offset + *length) lies within it, resolving the length, for
// |function|: a map, unmap, flush or invalidate.
halo_status_t check_host_range(Host host, const char *function,
                               const BufferFacts &buffer, uint64_t offset,
                               uint64_t *length) noexcept;

// Checks a map of [offset, offset + *length) and resolves the length.
halo_status_t check_map(Host host, const BufferFacts &buffer, uint64_t offset,
                        uint64_t *length) noexcept;

// Checks a fill and resolves its length.
halo_status_t check_fill(Host host, const BufferFacts &target, uint64_t offset,
                         uint64_t *length, size_t pattern_length) noexcept;

// Checks an update of |length| bytes at |offset|.
halo_status_t check_update(Host host, const BufferFacts &target,
                           uint64_t offset, uint64_t length) noexcept;

// Checks a copy; |same_buffer| says source and target are one buffer.
halo_status_t check_copy(Host host, const BufferFacts &source,
                         uint64_t source_offset, const BufferFacts &target,
                         uint64_t target_offset, uint64_t length,
                         bool same_buffer) noexcept;

// Checks a dispatch against its entry point; then, for each binding, call
// check_binding.
halo_status_t check_dispatch(Host host, const halo_dispatch_params_t &params,
                             const halo_entry_point_info_t &entry_point,
                             uint32_t entry_point_count) noexcept;

// Checks binding |index| of a dispatch and resolves its length.
halo_status_t check_binding(Host host, size_t index, const BufferFacts &buffer,
                            uint64_t offset, uint64_t *length,
                            uint64_t min_alignment) noexcept;

// Returns INVALID_ARGUMENT unless |mode| is exactly one known mode.
halo_status_t
check_command_buffer_mode(Host host, halo_command_buffer_mode_t mode) noexcept;

// The recording state machine of a command buffer: initial → recording →
// executable, plus "consumed" for a submitted ONE_SHOT command buffer.
// begin, end and the record checks are called by the recording thread only
// (command buffers are not thread-safe while recording, as in Vulkan);
// acquire_for_submit may race with other submits.
class RecordingState {
public:
  explicit RecordingState(halo_command_buffer_mode_t mode) noexcept
      : mode_(mode) {}

  halo_status_t begin(Host host) noexcept;
  halo_status_t end(Host host) noexcept;
  // FAILED_PRECONDITION unless recording; |function| names the command.
  halo_status_t check_recording(Host host, const char *function) noexcept;
  // FAILED_PRECONDITION unless ended; a ONE_SHOT command buffer succeeds
  // once. |index| is its place in the submission's list.
  halo_status_t acquire_for_submit(Host host, size_t index) noexcept;
  // Gives back a ONE_SHOT acquisition when the submission it was for did
  // not happen (a later check of the same submit failed).
  void release_unsubmitted() noexcept;

  halo_command_buffer_mode_t mode() const noexcept { return mode_; }

private:
  enum State : uint32_t { kInitial, kRecording, kExecutable, kConsumed };
  const halo_command_buffer_mode_t mode_;
  std::atomic<uint32_t> state_{kInitial};
};

} // namespace halo::sdk

#endif // HALO_SDK_COMMANDS_HPP_
