// Recording opencl command buffers: argument checks (shared with every
// plugin through sdk/commands.hpp) and the recorded commands.
#include "command_buffer.hpp"

#include <algorithm>
#include <cstring>

#include "buffer.hpp"
#include "cl_status.hpp"
#include "device.hpp"
#include "executable.hpp"

namespace halo::cl {
namespace {

void destroy_command_buffer(halo_object_t* object) {
  CommandBuffer* command_buffer = sdk::object_cast<CommandBuffer>(object);
  sdk::Host host = command_buffer->host;
  host.destroy(command_buffer);
}

halo_status_t begin(halo_command_buffer_t* command_buffer) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  return self->recording.begin(self->host);
}

halo_status_t end(halo_command_buffer_t* command_buffer) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  return self->recording.end(self->host);
}

halo_status_t barrier(halo_command_buffer_t* command_buffer) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  HALO_SDK_RETURN_IF_ERROR(
      self->recording.check_recording(self->host, "halo_command_buffer_barrier"));
  // Leading and repeated barriers order nothing.
  if (self->commands.empty() ||
      self->commands.back().kind == Command::Kind::kBarrier) {
    return HALO_OK;
  }
  return sdk::guard(self->host, [&] { self->append_barrier(); });
}

halo_status_t fill(halo_command_buffer_t* command_buffer, halo_buffer_t* target,
                   uint64_t offset, uint64_t length, const void* pattern,
                   size_t pattern_length) {
  static const char kFunction[] = "halo_command_buffer_fill";
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(self->host, kFunction));
  Buffer* buffer = nullptr;
  HALO_SDK_RETURN_IF_ERROR(self->own_buffer(target, kFunction, "target", &buffer));
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_fill(self->host, buffer->facts, offset, &length, pattern_length));
  if (length == 0) return HALO_OK;
  Command command;
  command.kind = Command::Kind::kFill;
  command.pattern_length = static_cast<uint8_t>(pattern_length);
  std::memcpy(&command.pattern, pattern, pattern_length);
  command.target = buffer->memory;
  command.offset = offset;
  command.length = length;
  const sdk::BufferAccess access = buffer->access(offset, length, true);
  return sdk::guard(self->host, [&] {
    self->append(command, {sdk::as_object(target)}, &access, 1);
  });
}

halo_status_t update(halo_command_buffer_t* command_buffer, const void* source,
                     halo_buffer_t* target, uint64_t offset, uint64_t length) {
  static const char kFunction[] = "halo_command_buffer_update";
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(self->host, kFunction));
  Buffer* buffer = nullptr;
  HALO_SDK_RETURN_IF_ERROR(self->own_buffer(target, kFunction, "target", &buffer));
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_update(self->host, buffer->facts, offset, length));
  if (length == 0) return HALO_OK;
  Command command;
  command.kind = Command::Kind::kUpdate;
  command.target = buffer->memory;
  command.offset = offset;
  command.length = length;
  command.data = self->host.allocate(static_cast<size_t>(length), 16);
  if (command.data == nullptr) {
    return self->host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                                  "%s: out of memory copying %llu bytes",
                                  kFunction,
                                  static_cast<unsigned long long>(length));
  }
  std::memcpy(command.data, source, static_cast<size_t>(length));
  const sdk::BufferAccess access = buffer->access(offset, length, true);
  halo_status_t status = sdk::guard(self->host, [&] {
    self->append(command, {sdk::as_object(target)}, &access, 1);
  });
  if (status != HALO_OK) self->host.deallocate(command.data);
  return status;
}

halo_status_t copy(halo_command_buffer_t* command_buffer, halo_buffer_t* source,
                   uint64_t source_offset, halo_buffer_t* target,
                   uint64_t target_offset, uint64_t length) {
  static const char kFunction[] = "halo_command_buffer_copy";
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(self->host, kFunction));
  Buffer* from = nullptr;
  Buffer* to = nullptr;
  HALO_SDK_RETURN_IF_ERROR(self->own_buffer(source, kFunction, "source", &from));
  HALO_SDK_RETURN_IF_ERROR(self->own_buffer(target, kFunction, "target", &to));
  HALO_SDK_RETURN_IF_ERROR(sdk::check_copy(self->host, from->facts,
                                           source_offset, to->facts,
                                           target_offset, length, from == to));
  if (length == 0) return HALO_OK;
  Command command;
  command.kind = Command::Kind::kCopy;
  command.source = from->memory;
  command.source_offset = source_offset;
  command.target = to->memory;
  command.offset = target_offset;
  command.length = length;
  const sdk::BufferAccess accesses[2] = {
      from->access(source_offset, length, false),
      to->access(target_offset, length, true)};
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_copy_aliases(self->host, accesses[0], accesses[1]));
  return sdk::guard(self->host, [&] {
    self->append(command, {sdk::as_object(source), sdk::as_object(target)},
                 accesses, 2);
  });
}

halo_status_t dispatch(halo_command_buffer_t* command_buffer,
                       const halo_dispatch_params_t* params) {
  return CommandBuffer::cast(command_buffer)->record_dispatch(*params);
}

}  // namespace

const halo_command_buffer_vtable_t CommandBuffer::kVtable = {
    .object = {.struct_size = sizeof(halo_command_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_COMMAND_BUFFER,
               .destroy = &destroy_command_buffer},
    .begin = &begin,
    .end = &end,
    .barrier = &barrier,
    .fill = &fill,
    .update = &update,
    .copy = &copy,
    .dispatch = &dispatch,
};

CommandBuffer::CommandBuffer(Device* device, halo_command_buffer_mode_t mode)
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(device->host),
      api(device->api),
      device(device),
      recording(mode),
      commands(sdk::HostAllocator<Command>(device->host)),
      retained(sdk::HostAllocator<halo_object_t*>(device->host)),
      external_memory(sdk::HostAllocator<cl_mem>(device->host)),
      hazards(device->host) {
  host.retain(sdk::as_object(device->handle()));
}

CommandBuffer::~CommandBuffer() {
  for (Command& command : commands) {
    host.deallocate(command.data);
    if (command.kernel != nullptr) api->clReleaseKernel(command.kernel);
  }
  for (halo_object_t* object : retained) host.release(object);
  host.release(sdk::as_object(device->handle()));
}

halo_status_t CommandBuffer::create(Device* device,
                                    halo_command_buffer_mode_t mode,
                                    halo_command_buffer_t** out) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_command_buffer_mode(device->host, mode));
  return sdk::guard(device->host, [&] {
    *out = device->host.make<CommandBuffer>(device, mode)->handle();
  });
}

halo_status_t CommandBuffer::own_buffer(halo_buffer_t* buffer,
                                        const char* function,
                                        const char* argument,
                                        Buffer** out) const noexcept {
  Buffer* own = Buffer::from(buffer);
  if (own == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s is not an opencl buffer", function,
                            argument);
  }
  if (own->device->context() != device->context()) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s belongs to another OpenCL device",
                            function, argument);
  }
  *out = own;
  return HALO_OK;
}

void CommandBuffer::append(const Command& command,
                           std::initializer_list<halo_object_t*> objects,
                           const sdk::BufferAccess* accesses,
                           size_t access_count) {
  if (hazards.conflicts(accesses, access_count)) append_barrier();
  hazards.add(accesses, access_count);
  retained.reserve(retained.size() + objects.size());
  external_memory.reserve(external_memory.size() + objects.size());
  commands.push_back(command);
  // Cannot throw: reserved above.
  for (halo_object_t* object : objects) {
    if (object == nullptr) continue;
    host.retain(object);
    retained.push_back(object);
    const Buffer* buffer =
        Buffer::from(reinterpret_cast<halo_buffer_t*>(object));
    if (buffer != nullptr && buffer->external &&
        std::find(external_memory.begin(), external_memory.end(),
                  buffer->memory) == external_memory.end()) {
      external_memory.push_back(buffer->memory);
    }
  }
  if (command.kind != Command::Kind::kBarrier) ++enqueue_count;
}

void CommandBuffer::append_barrier() {
  commands.push_back(Command{});
  hazards.clear();
}

}  // namespace halo::cl
