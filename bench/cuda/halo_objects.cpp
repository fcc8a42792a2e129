// Creating, recording and submitting halo objects (see halo_objects.hpp).
#include "halo_objects.hpp"

#include <string>

#include "checks.hpp"

namespace halo::bench {

SemaphorePtr make_semaphore(halo_device_t* device, uint64_t initial_value) {
  halo_semaphore_t* semaphore = nullptr;
  check(halo_semaphore_create(device, initial_value, HALO_SEMAPHORE_FLAG_NONE,
                              &semaphore),
        "halo_semaphore_create");
  return SemaphorePtr(semaphore);
}

BufferPtr make_buffer(halo_device_t* device, uint64_t size) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                 HALO_BUFFER_USAGE_TRANSFER_TARGET |
                 HALO_BUFFER_USAGE_DISPATCH_STORAGE;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  check(halo_buffer_allocate(device, &params, &buffer), "halo_buffer_allocate");
  return BufferPtr(buffer);
}

ExecutablePtr make_executable(halo_device_t* device, const std::string& ptx,
                              std::string* error) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "ptx";
  params.data = ptx.data();
  params.data_size = ptx.size();
  halo_executable_t* executable = nullptr;
  halo_status_t status = halo_executable_create(device, &params, &executable);
  if (status != HALO_OK) {
    *error = describe("halo_executable_create", status);
    return nullptr;
  }
  return ExecutablePtr(executable);
}

bool find_entry_point(halo_executable_t* executable, const char* name,
                      uint32_t* out_ordinal, halo_entry_point_info_t* out_info,
                      std::string* error) {
  halo_status_t status =
      halo_executable_lookup_entry_point(executable, name, out_ordinal);
  if (status != HALO_OK) {
    *error = describe("halo_executable_lookup_entry_point", status);
    return false;
  }
  *out_info = {};
  out_info->struct_size = sizeof(*out_info);
  check(halo_executable_query_entry_point(executable, *out_ordinal, out_info),
        "halo_executable_query_entry_point");
  return true;
}

CommandBufferPtr begin_recording(halo_device_t* device) {
  halo_command_buffer_t* command_buffer = nullptr;
  check(halo_command_buffer_create(device, HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                   &command_buffer),
        "halo_command_buffer_create");
  CommandBufferPtr owner(command_buffer);
  check(halo_command_buffer_begin(command_buffer), "halo_command_buffer_begin");
  return owner;
}

void end_recording(halo_command_buffer_t* command_buffer) {
  check(halo_command_buffer_end(command_buffer), "halo_command_buffer_end");
}

CommandBufferPtr record_fill(halo_device_t* device, halo_buffer_t* buffer,
                             uint64_t size, uint32_t pattern) {
  CommandBufferPtr fill = begin_recording(device);
  check(halo_command_buffer_fill(fill.get(), buffer, 0, size, &pattern,
                                 sizeof(pattern)),
        "halo_command_buffer_fill");
  end_recording(fill.get());
  return fill;
}

CommandBufferPtr record_copy(halo_device_t* device, halo_buffer_t* source,
                             halo_buffer_t* target, uint64_t size) {
  CommandBufferPtr copy = begin_recording(device);
  check(halo_command_buffer_copy(copy.get(), source, 0, target, 0, size),
        "halo_command_buffer_copy");
  end_recording(copy.get());
  return copy;
}

CommandBufferPtr record_one_workgroup(halo_device_t* device,
                                      halo_executable_t* executable,
                                      uint32_t entry) {
  CommandBufferPtr dispatch = begin_recording(device);
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.executable = executable;
  params.entry_point = entry;
  params.workgroup_count[0] = 1;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  check(halo_command_buffer_dispatch(dispatch.get(), &params),
        "halo_command_buffer_dispatch");
  end_recording(dispatch.get());
  return dispatch;
}

void submit(halo_device_t* device, const Timepoint& wait,
            const Timepoint& signal, halo_command_buffer_t* command_buffer) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  if (wait.semaphore != nullptr) {
    info.wait_count = 1;
    info.wait_semaphores = &wait.semaphore;
    info.wait_values = &wait.value;
  }
  info.signal_count = 1;
  info.signal_semaphores = &signal.semaphore;
  info.signal_values = &signal.value;
  if (command_buffer != nullptr) {
    info.command_buffer_count = 1;
    info.command_buffers = &command_buffer;
  }
  check(halo_device_queue_execute(device, &info), "halo_device_queue_execute");
}

void wait(const Timepoint& timepoint) {
  check(halo_semaphore_wait(timepoint.semaphore, timepoint.value,
                            HALO_DEADLINE_INFINITE_FUTURE),
        "halo_semaphore_wait");
}

void wait_idle(halo_device_t* device) {
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
}

void run_once(halo_device_t* device, halo_command_buffer_t* command_buffer) {
  SemaphorePtr done = make_semaphore(device, 0);
  const Timepoint signal{done.get(), 1};
  submit(device, Timepoint{}, signal, command_buffer);
  wait(signal);
}

}  // namespace halo::bench
