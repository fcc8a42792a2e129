// Recording a dispatch: checks, a kernel object of its own with every
// argument set, and the global size (checked in dispatch_grid.cpp).
#include <cstdio>
#include <cstring>

#include "buffer.hpp"
#include "cl_status.hpp"
#include "command_buffer.hpp"
#include "device.hpp"
#include "dispatch_grid.hpp"
#include "executable.hpp"

namespace halo::cl {
namespace {

constexpr char kFunction[] = "halo_command_buffer_dispatch";

// A dispatch being recorded: what it owns until it is appended.
struct PendingDispatch {
  const Api* api;
  cl_kernel kernel = nullptr;

  ~PendingDispatch() {
    if (kernel != nullptr) api->clReleaseKernel(kernel);
  }
};

// Sets binding |index| (already checked: |length| resolved, |offset|
// aligned to the device's base address alignment) as kernel argument
// |index|, through the buffer's sub-buffer of the range unless it is the
// whole buffer (the command buffer retains the buffer, which keeps it).
halo_status_t bind(sdk::Host host, const Api& api, Buffer& buffer,
                   uint32_t index, uint64_t offset, uint64_t length,
                   PendingDispatch* pending) {
  cl_mem memory = buffer.memory;
  if (offset != 0 || length != buffer.facts.size) {
    HALO_SDK_RETURN_IF_ERROR(buffer.region(offset, length, &memory));
  }
  HALO_CL_RETURN_IF_ERROR(
      host, "clSetKernelArg",
      api.clSetKernelArg(pending->kernel, index, sizeof(cl_mem), &memory));
  return HALO_OK;
}

// Sets the scalar arguments from the dispatch's constant bytes.
halo_status_t set_constants(sdk::Host host, const Api& api,
                            const EntryPoint& entry, const void* constants,
                            cl_kernel kernel) {
  const auto* bytes = static_cast<const unsigned char*>(constants);
  for (uint32_t j = 0; j < entry.constant_count; ++j) {
    HALO_CL_RETURN_IF_ERROR(
        host, "clSetKernelArg",
        api.clSetKernelArg(kernel, entry.info.binding_count + j,
                           entry.constant_sizes[j],
                           bytes + entry.constant_offsets[j]));
  }
  return HALO_OK;
}

}  // namespace

halo_status_t CommandBuffer::check_bindings(
    const halo_dispatch_params_t& params, Buffer** buffers,
    uint64_t* lengths) const noexcept {
  for (size_t i = 0; i < params.binding_count; ++i) {
    const halo_buffer_binding_t& binding = params.bindings[i];
    char argument[48];
    std::snprintf(argument, sizeof(argument), "params->bindings[%zu]", i);
    HALO_SDK_RETURN_IF_ERROR(
        own_buffer(binding.buffer, kFunction, argument, &buffers[i]));
    lengths[i] = binding.length;
    HALO_SDK_RETURN_IF_ERROR(sdk::check_binding(
        host, i, buffers[i]->facts, binding.offset, &lengths[i],
        device->capabilities().min_buffer_alignment));
  }
  return HALO_OK;
}

halo_status_t CommandBuffer::record_dispatch(
    const halo_dispatch_params_t& params) noexcept {
  HALO_SDK_RETURN_IF_ERROR(recording.check_recording(host, kFunction));
  Executable* executable = Executable::from(params.executable);
  if (executable == nullptr ||
      executable->device->context() != device->context()) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->executable is not an opencl "
                            "executable of this device",
                            kFunction);
  }
  const uint32_t ordinal = params.entry_point;
  halo_entry_point_info_t none = {};
  const EntryPoint* entry = ordinal < executable->entry_point_count
                                ? &executable->entry_points[ordinal]
                                : nullptr;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_dispatch(
      host, params, entry != nullptr ? entry->info : none,
      executable->entry_point_count));
  Buffer* buffers[kMaxKernelParameters] = {};
  uint64_t lengths[kMaxKernelParameters] = {};
  HALO_SDK_RETURN_IF_ERROR(check_bindings(params, buffers, lengths));
  Command command;
  command.kind = Command::Kind::kDispatch;
  for (int d = 0; d < 3; ++d) command.local[d] = entry->local_size[d];
  HALO_SDK_RETURN_IF_ERROR(check_grid(host, params.workgroup_count,
                                      entry->local_size,
                                      device->description->size_max,
                                      command.global));
  if (command.global[0] == 0 || command.global[1] == 0 ||
      command.global[2] == 0) {
    return HALO_OK;  // No workgroups: nothing to run.
  }
  PendingDispatch pending{api};
  HALO_SDK_RETURN_IF_ERROR(executable->make_dispatch_kernel(ordinal, &pending.kernel));
  for (uint32_t i = 0; i < params.binding_count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(bind(host, *api, *buffers[i], i,
                                  params.bindings[i].offset, lengths[i],
                                  &pending));
  }
  HALO_SDK_RETURN_IF_ERROR(
      set_constants(host, *api, *entry, params.constants, pending.kernel));
  command.kernel = pending.kernel;
  // halo cannot tell what a kernel does with a binding: each counts as
  // written.
  sdk::BufferAccess accesses[kMaxKernelParameters] = {};
  for (uint32_t i = 0; i < params.binding_count; ++i) {
    accesses[i] =
        buffers[i]->access(params.bindings[i].offset, lengths[i], true);
  }
  return sdk::guard(host, [&] {
    retained.reserve(retained.size() + 1 + params.binding_count);
    append(command, {sdk::as_object(params.executable)}, accesses,
           params.binding_count);
    // Owned by the command buffer from here on.
    pending.kernel = nullptr;
    for (size_t i = 0; i < params.binding_count; ++i) {
      host.retain(sdk::as_object(params.bindings[i].buffer));
      retained.push_back(sdk::as_object(params.bindings[i].buffer));
    }
  });
}

}  // namespace halo::cl
