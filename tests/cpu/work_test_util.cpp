// Helpers of the cpu plugin's work tests.
#include "work_test_util.hpp"

#include <fstream>
#include <iterator>

namespace halo_cpu_test {

std::vector<uint8_t> kernel_bytes(const std::string& name) {
  std::string path = std::string(HALO_TEST_CPU_KERNEL_DIR) + "/" + name +
                     ".cpu-so";
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file),
                              std::istreambuf_iterator<char>());
}

BufferPtr WorkTest::make_buffer(uint64_t size, halo_buffer_usage_t usage,
                                halo_memory_type_t memory_type,
                                halo_device_t* device) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = usage;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  HALO_EXPECT_OK(
      halo_buffer_allocate(device ? device : this->device(), &params, &buffer));
  return BufferPtr(buffer);
}

CommandBufferPtr WorkTest::make_command_buffer(halo_command_buffer_mode_t mode,
                                               halo_device_t* device) {
  halo_command_buffer_t* command_buffer = nullptr;
  HALO_EXPECT_OK(halo_command_buffer_create(device ? device : this->device(),
                                            mode, &command_buffer));
  HALO_EXPECT_OK(halo_command_buffer_begin(command_buffer));
  return CommandBufferPtr(command_buffer);
}

Status WorkTest::create_executable(const std::string& name,
                                   ExecutablePtr* out, halo_device_t* device) {
  std::vector<uint8_t> bytes = kernel_bytes(name);
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "cpu-so";
  params.data = bytes.data();
  params.data_size = bytes.size();
  halo_executable_t* executable = nullptr;
  Status status(halo_executable_create(device ? device : this->device(),
                                       &params, &executable));
  out->reset(executable);
  return status;
}

ExecutablePtr WorkTest::test_kernels(halo_device_t* device) {
  ExecutablePtr executable;
  Status status = create_executable("test_kernels", &executable, device);
  EXPECT_TRUE(status.ok()) << status.describe();
  return executable;
}

uint32_t WorkTest::entry_point(halo_executable_t* executable,
                               const std::string& name) {
  uint32_t ordinal = ~0u;
  HALO_EXPECT_OK(
      halo_executable_lookup_entry_point(executable, name.c_str(), &ordinal));
  return ordinal;
}

Status WorkTest::dispatch(halo_command_buffer_t* command_buffer,
                          const DispatchSpec& spec) {
  std::vector<halo_buffer_binding_t> bindings;
  for (halo_buffer_t* buffer : spec.buffers) {
    bindings.push_back({buffer, 0, HALO_WHOLE_BUFFER});
  }
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.executable = spec.executable;
  params.entry_point = entry_point(spec.executable, spec.entry_point);
  std::memcpy(params.workgroup_count, spec.workgroups,
              sizeof(params.workgroup_count));
  params.constant_size =
      static_cast<uint32_t>(spec.constants.bytes().size());
  params.constants = spec.constants.bytes().data();
  params.binding_count = bindings.size();
  params.bindings = bindings.data();
  return Status(halo_command_buffer_dispatch(command_buffer, &params));
}

Status WorkTest::execute(
    const std::vector<halo_command_buffer_t*>& command_buffers,
    const std::vector<halo_semaphore_t*>& waits,
    const std::vector<uint64_t>& wait_values,
    const std::vector<halo_semaphore_t*>& signals,
    const std::vector<uint64_t>& signal_values, halo_device_t* device) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  info.command_buffer_count = command_buffers.size();
  info.command_buffers = command_buffers.data();
  return Status(
      halo_device_queue_execute(device ? device : this->device(), &info));
}

void WorkTest::end_and_run(halo_command_buffer_t* command_buffer,
                           halo_device_t* device) {
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer));
  halo_semaphore_t* done = nullptr;
  HALO_ASSERT_OK(halo_semaphore_create(device ? device : this->device(), 0,
                                       HALO_SEMAPHORE_FLAG_NONE, &done));
  SemaphorePtr owner(done);
  Status status = execute({command_buffer}, {}, {}, {done}, {1}, device);
  ASSERT_TRUE(status.ok()) << status.describe();
  HALO_EXPECT_OK(
      halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_FUTURE));
}

}  // namespace halo_cpu_test
