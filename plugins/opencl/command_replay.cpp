// Replaying a command buffer as enqueues (see CommandBuffer::enqueue).
#include "cl_status.hpp"
#include "command_buffer.hpp"

namespace halo::cl {
namespace {

// Enqueues |command| after |deps|; its event in |*out|.
halo_status_t enqueue_one(sdk::Host host, const Api& api,
                          cl_command_queue queue, const Command& command,
                          const EventList& deps, cl_event* out) {
  const size_t offset = static_cast<size_t>(command.offset);
  const size_t length = static_cast<size_t>(command.length);
  switch (command.kind) {
    case Command::Kind::kFill:
      return cl_status(host, "clEnqueueFillBuffer",
                       api.clEnqueueFillBuffer(
                           queue, command.target, &command.pattern,
                           command.pattern_length, offset, length, deps.size(),
                           deps.data(), out));
    case Command::Kind::kUpdate:
      return cl_status(host, "clEnqueueWriteBuffer",
                       api.clEnqueueWriteBuffer(queue, command.target, CL_FALSE,
                                                offset, length, command.data,
                                                deps.size(), deps.data(), out));
    case Command::Kind::kCopy:
      return cl_status(
          host, "clEnqueueCopyBuffer",
          api.clEnqueueCopyBuffer(queue, command.source, command.target,
                                  static_cast<size_t>(command.source_offset),
                                  offset, length, deps.size(), deps.data(),
                                  out));
    case Command::Kind::kDispatch:
      return cl_status(host, "clEnqueueNDRangeKernel",
                       api.clEnqueueNDRangeKernel(
                           queue, command.kernel, 3, nullptr, command.global,
                           command.local, deps.size(), deps.data(), out));
    case Command::Kind::kBarrier:
      break;
  }
  return host.make_status_text(HALO_STATUS_INTERNAL,
                               "a barrier reached enqueue_one");
}

}  // namespace

halo_status_t CommandBuffer::enqueue(cl_command_queue queue,
                                     EventList* deps) const {
  // The events of the commands since the last barrier.
  EventList segment(host, api);
  for (const Command& command : commands) {
    if (command.kind == Command::Kind::kBarrier) {
      // The segment's events become the next commands' wait list (no
      // join command: see Device::join for why markers will not do).
      if (!segment.empty()) {
        deps->swap(segment);
        segment.clear();
      }
      continue;
    }
    cl_event event = nullptr;
    HALO_SDK_RETURN_IF_ERROR(
        enqueue_one(host, *api, queue, command, *deps, &event));
    segment.push(event);
  }
  if (!segment.empty()) {
    deps->swap(segment);
    segment.clear();
  }
  return HALO_OK;
}

}  // namespace halo::cl
