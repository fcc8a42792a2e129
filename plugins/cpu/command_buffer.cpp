// The cpu command buffer's vtable: recording (with every check done here,
// once), submission checks and running the recorded commands.
#include "command_buffer.hpp"

#include <cstdio>
#include <cstring>

#include "buffer.hpp"
#include "dispatch.hpp"
#include "executable.hpp"
#include "transfer.hpp"

namespace halo::cpu {
namespace {

constexpr char kFill[] = "halo_command_buffer_fill";
constexpr char kUpdate[] = "halo_command_buffer_update";
constexpr char kCopy[] = "halo_command_buffer_copy";
constexpr char kDispatch[] = "halo_command_buffer_dispatch";

void destroy_command_buffer(halo_object_t* object) {
  auto* command_buffer = sdk::object_cast<CommandBuffer>(object);
  sdk::Host host = command_buffer->host;
  host.destroy(command_buffer);
}

// Adds a reference to |object| held until the command buffer is destroyed.
// Called before the command that needs it is stored, so a stored command
// never names an unretained object.
void retain(CommandBuffer* self, halo_object_t* object) {
  if (!self->retained.empty() && self->retained.back() == object) return;
  self->retained.push_back(object);
  self->host.retain(object);
}

// Appends |size| bytes at |bytes| to the word store; returns the first
// word's index.
size_t append_words(CommandBuffer* self, const void* bytes, uint64_t size) {
  size_t first = self->words.size();
  self->words.resize(first + static_cast<size_t>((size + 7) / 8));
  if (size > 0) std::memcpy(self->words.data() + first, bytes, size);
  return first;
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
  // Nothing to record (see Command); the state still has to allow it.
  return self->recording.check_recording(self->host,
                                         "halo_command_buffer_barrier");
}

halo_status_t fill(halo_command_buffer_t* command_buffer,
                   halo_buffer_t* target, uint64_t offset, uint64_t length,
                   const void* pattern, size_t pattern_length) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  sdk::Host host = self->host;
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(host, kFill));
  Buffer* buffer = nullptr;
  HALO_SDK_RETURN_IF_ERROR(
      Buffer::resolve(host, target, self->device, kFill, "target", &buffer));
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_fill(host, buffer->facts, offset, &length, pattern_length));
  if (length == 0) return HALO_OK;
  return HALO_SDK_TRY(host, {
    FillCommand command = {buffer->data + offset, length, {},
                           static_cast<uint32_t>(pattern_length)};
    std::memcpy(command.pattern, pattern, pattern_length);
    retain(self, sdk::as_object(target));
    self->commands.emplace_back(command);
    return HALO_OK;
  });
}

halo_status_t update(halo_command_buffer_t* command_buffer,
                     const void* source, halo_buffer_t* target,
                     uint64_t offset, uint64_t length) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  sdk::Host host = self->host;
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(host, kUpdate));
  Buffer* buffer = nullptr;
  HALO_SDK_RETURN_IF_ERROR(Buffer::resolve(host, target, self->device,
                                           kUpdate, "target", &buffer));
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_update(host, buffer->facts, offset, length));
  if (length == 0) return HALO_OK;
  return HALO_SDK_TRY(host, {
    // Copied now: the caller's bytes are only borrowed for the call.
    size_t first_word = append_words(self, source, length);
    retain(self, sdk::as_object(target));
    self->commands.emplace_back(
        UpdateCommand{buffer->data + offset, length, first_word});
    return HALO_OK;
  });
}

halo_status_t copy(halo_command_buffer_t* command_buffer,
                   halo_buffer_t* source, uint64_t source_offset,
                   halo_buffer_t* target, uint64_t target_offset,
                   uint64_t length) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  sdk::Host host = self->host;
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(host, kCopy));
  Buffer* from = nullptr;
  Buffer* to = nullptr;
  HALO_SDK_RETURN_IF_ERROR(
      Buffer::resolve(host, source, self->device, kCopy, "source", &from));
  HALO_SDK_RETURN_IF_ERROR(
      Buffer::resolve(host, target, self->device, kCopy, "target", &to));
  HALO_SDK_RETURN_IF_ERROR(sdk::check_copy(host, from->facts, source_offset,
                                           to->facts, target_offset, length,
                                           from == to));
  if (length == 0) return HALO_OK;
  return HALO_SDK_TRY(host, {
    retain(self, sdk::as_object(source));
    retain(self, sdk::as_object(target));
    self->commands.emplace_back(CopyCommand{
        from->data + source_offset, to->data + target_offset, length});
    return HALO_OK;
  });
}

// Checks the dispatch's executable, entry point and grid; stores the entry
// point in |*out| and the number of workgroups in |*workgroups|.
halo_status_t check_dispatch(CommandBuffer* self,
                             const halo_dispatch_params_t& params,
                             const EntryPoint** out, uint64_t* workgroups) {
  sdk::Host host = self->host;
  Executable* executable = nullptr;
  HALO_SDK_RETURN_IF_ERROR(Executable::resolve(host, params.executable,
                                               self->device, kDispatch,
                                               "params->executable",
                                               &executable));
  const EntryPoint* entry_point = nullptr;
  halo_entry_point_info_t info = {};
  if (params.entry_point < executable->entry_point_count) {
    entry_point = &executable->entry_points[params.entry_point];
    info = entry_point->describe();
  }
  HALO_SDK_RETURN_IF_ERROR(sdk::check_dispatch(
      host, params, info, executable->entry_point_count));
  const uint32_t* count = params.workgroup_count;
  uint64_t product = 0;
  if (__builtin_mul_overflow(uint64_t{count[0]}, uint64_t{count[1]},
                             &product) ||
      __builtin_mul_overflow(product, uint64_t{count[2]}, &product)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->workgroup_count %u x %u x %u is more "
                            "than 2^64 workgroups",
                            kDispatch, count[0], count[1], count[2]);
  }
  *out = entry_point;
  *workgroups = product;
  return HALO_OK;
}

// Checks every binding and stores its buffer in |buffers|.
halo_status_t check_bindings(CommandBuffer* self,
                             const halo_dispatch_params_t& params,
                             Buffer** buffers) {
  for (size_t i = 0; i < params.binding_count; ++i) {
    const halo_buffer_binding_t& binding = params.bindings[i];
    char argument[48];
    std::snprintf(argument, sizeof(argument), "params->bindings[%zu]", i);
    HALO_SDK_RETURN_IF_ERROR(Buffer::resolve(self->host, binding.buffer,
                                             self->device, kDispatch,
                                             argument, &buffers[i]));
    uint64_t length = binding.length;
    HALO_SDK_RETURN_IF_ERROR(
        sdk::check_binding(self->host, i, buffers[i]->facts, binding.offset,
                           &length, kMinBufferAlignment));
  }
  return HALO_OK;
}

halo_status_t dispatch(halo_command_buffer_t* command_buffer,
                       const halo_dispatch_params_t* params) {
  CommandBuffer* self = CommandBuffer::cast(command_buffer);
  sdk::Host host = self->host;
  HALO_SDK_RETURN_IF_ERROR(self->recording.check_recording(host, kDispatch));
  const EntryPoint* entry_point = nullptr;
  uint64_t workgroups = 0;
  HALO_SDK_RETURN_IF_ERROR(
      check_dispatch(self, *params, &entry_point, &workgroups));
  // check_dispatch matched binding_count to the entry point's, which is at
  // most HALO_CPU_MAX_PARAMETERS.
  Buffer* buffers[HALO_CPU_MAX_PARAMETERS];
  HALO_SDK_RETURN_IF_ERROR(check_bindings(self, *params, buffers));
  if (workgroups == 0) return HALO_OK;  // An empty grid does nothing.
  return HALO_SDK_TRY(host, {
    retain(self, sdk::as_object(params->executable));
    size_t first_binding = self->pointers.size();
    for (size_t i = 0; i < params->binding_count; ++i) {
      retain(self, sdk::as_object(params->bindings[i].buffer));
      self->pointers.push_back(buffers[i]->data + params->bindings[i].offset);
    }
    size_t constants_word =
        append_words(self, params->constants, params->constant_size);
    DispatchCommand command = {entry_point,
                               {params->workgroup_count[0],
                                params->workgroup_count[1],
                                params->workgroup_count[2]},
                               workgroups, first_binding, constants_word};
    self->commands.emplace_back(command);
    return HALO_OK;
  });
}

// Runs one command; the recorded arguments were checked at record time.
struct CommandRunner {
  const CommandBuffer& command_buffer;
  WorkerPool& pool;

  void operator()(const FillCommand& command) const noexcept {
    fill_pattern(command.target, command.length, command.pattern,
                 command.pattern_length);
  }
  void operator()(const UpdateCommand& command) const noexcept {
    std::memcpy(command.target,
                command_buffer.words.data() + command.source_word,
                command.length);
  }
  void operator()(const CopyCommand& command) const noexcept {
    std::memcpy(command.target, command.source, command.length);
  }
  void operator()(const DispatchCommand& command) const noexcept {
    DispatchWork work;
    work.entry_point = command.entry_point;
    std::memcpy(work.workgroup_count, command.workgroup_count,
                sizeof(work.workgroup_count));
    work.workgroups = command.workgroups;
    work.bindings = command_buffer.pointers.data() + command.first_binding;
    work.constants = reinterpret_cast<const uint8_t*>(
        command_buffer.words.data() + command.constants_word);
    run_dispatch(pool, work);
  }
};

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

CommandBuffer::CommandBuffer(sdk::Host host, halo_device_t* device,
                             halo_command_buffer_mode_t mode) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      device(device),
      recording(mode),
      commands(sdk::HostAllocator<Command>(host)),
      words(sdk::HostAllocator<uint64_t>(host)),
      pointers(sdk::HostAllocator<void*>(host)),
      retained(sdk::HostAllocator<halo_object_t*>(host)) {
  host.retain(sdk::as_object(device));
}

CommandBuffer::~CommandBuffer() {
  for (halo_object_t* object : retained) host.release(object);
  host.release(sdk::as_object(device));
}

halo_status_t CommandBuffer::create(
    sdk::Host host, halo_device_t* device, halo_command_buffer_mode_t mode,
    halo_command_buffer_t** out_command_buffer) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_command_buffer_mode(host, mode));
  return sdk::guard(host, [&] {
    *out_command_buffer =
        host.make<CommandBuffer>(host, device, mode)->handle();
  });
}

void CommandBuffer::run(WorkerPool& pool) const noexcept {
  CommandRunner runner{*this, pool};
  for (const Command& command : commands) std::visit(runner, command);
}

halo_status_t acquire_command_buffers(
    sdk::Host host, halo_device_t* device, size_t count,
    halo_command_buffer_t* const* command_buffers) noexcept {
  static const char kFunction[] = "halo_device_queue_execute";
  for (size_t i = 0; i < count; ++i) {
    CommandBuffer* command_buffer = CommandBuffer::from(command_buffers[i]);
    halo_status_t status = HALO_OK;
    if (command_buffer == nullptr) {
      status = host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: info->command_buffers[%zu] is a command "
                                "buffer of another plugin",
                                kFunction, i);
    } else if (command_buffer->device != device) {
      status = host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: info->command_buffers[%zu] belongs to "
                                "another device",
                                kFunction, i);
    } else {
      status = command_buffer->recording.acquire_for_submit(host, i);
    }
    if (status != HALO_OK) {
      release_unsubmitted(i, command_buffers);
      return status;
    }
  }
  return HALO_OK;
}

void release_unsubmitted(
    size_t count, halo_command_buffer_t* const* command_buffers) noexcept {
  for (size_t i = 0; i < count; ++i) {
    CommandBuffer::cast(command_buffers[i])->recording.release_unsubmitted();
  }
}

}  // namespace halo::cpu
