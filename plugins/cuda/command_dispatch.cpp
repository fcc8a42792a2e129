// Recording a dispatch: checks, the grid against the device's limits, and
// the launch arguments in storage of the command's own.
#include <cstdio>
#include <cstring>

#include "buffer.hpp"
#include "command_buffer.hpp"
#include "device.hpp"
#include "executable.hpp"
#include "halo/sdk/device_limits.hpp"

namespace halo::cuda {
namespace {

constexpr char kFunction[] = "halo_command_buffer_dispatch";

// Every launch argument gets an 8-byte slot: a buffer address or a 4- or
// 8-byte constant.
using Slot = uint64_t;

}  // namespace

halo_status_t CommandBuffer::record_dispatch(
    const halo_dispatch_params_t& params) noexcept {
  HALO_SDK_RETURN_IF_ERROR(recording.check_recording(host, kFunction));
  Executable* executable = Executable::from(params.executable);
  if (executable == nullptr ||
      executable->device->context != device->context) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->executable is not a cuda executable "
                            "of this device",
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
  for (size_t i = 0; i < params.binding_count; ++i) {
    const halo_buffer_binding_t& binding = params.bindings[i];
    char argument[48];
    std::snprintf(argument, sizeof(argument), "params->bindings[%zu]", i);
    HALO_SDK_RETURN_IF_ERROR(
        own_buffer(binding.buffer, kFunction, argument, &buffers[i]));
    uint64_t length = binding.length;
    HALO_SDK_RETURN_IF_ERROR(
        sdk::check_binding(host, i, buffers[i]->facts, binding.offset,
                           &length, device->capabilities().min_buffer_alignment));
  }
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_workgroup_count(host, params, device->capabilities()));
  const uint32_t* count = params.workgroup_count;
  if (count[0] == 0 || count[1] == 0 || count[2] == 0) {
    return HALO_OK;  // No workgroups: nothing to run.
  }
  const uint32_t argument_count =
      entry->info.binding_count + entry->constant_count;
  // kernelParams first, then the slots they point to.
  const size_t bytes = argument_count * (sizeof(void*) + sizeof(Slot));
  Command command;
  command.kind = Command::Kind::kDispatch;
  command.function = entry->function;
  for (int d = 0; d < 3; ++d) {
    command.grid[d] = count[d];
    command.block[d] = entry->info.workgroup_size[d];
  }
  if (argument_count > 0) {
    command.arguments =
        static_cast<void**>(host.allocate(bytes, alignof(Slot)));
    if (command.arguments == nullptr) {
      return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "%s: out of memory for %u launch arguments",
                              kFunction, argument_count);
    }
    auto* slots = reinterpret_cast<Slot*>(command.arguments + argument_count);
    for (uint32_t i = 0; i < argument_count; ++i) {
      slots[i] = 0;
      command.arguments[i] = &slots[i];
    }
    for (uint32_t i = 0; i < params.binding_count; ++i) {
      const CUdeviceptr address = buffers[i]->address + params.bindings[i].offset;
      std::memcpy(&slots[i], &address, sizeof(address));
    }
    const auto* constants = static_cast<const unsigned char*>(params.constants);
    for (uint32_t j = 0; j < entry->constant_count; ++j) {
      std::memcpy(&slots[entry->info.binding_count + j],
                  constants + entry->constant_offsets[j],
                  entry->constant_sizes[j]);
    }
  }
  halo_status_t status = sdk::guard(host, [&] {
    retained.reserve(retained.size() + 1 + params.binding_count);
    append(command, {sdk::as_object(params.executable)});
    // Cannot throw: reserved above.
    for (size_t i = 0; i < params.binding_count; ++i) {
      host.retain(sdk::as_object(params.bindings[i].buffer));
      retained.push_back(sdk::as_object(params.bindings[i].buffer));
    }
  });
  if (status != HALO_OK) host.deallocate(command.arguments);
  return status;
}

}  // namespace halo::cuda
