// Shared helpers of the opencl plugin tests.
#include "opencl_test_util.hpp"

#include <cstring>

namespace halo_opencl_test {

std::string Status::describe() const {
  if (ok()) return "OK";
  return std::string(halo_status_code_name(code())) + ": " + message();
}

halo_time_ns_t deadline_in_ms(int64_t milliseconds) {
  return halo_deadline_after_ns(milliseconds * 1000000);
}

OpenClRegistry::OpenClRegistry() {
  const char* paths[] = {HALO_TEST_OPENCL_MANIFEST};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_status_free(halo_registry_create(&options, &registry_));
  if (registry_ != nullptr) {
    halo_status_free(halo_registry_find_driver(registry_, "opencl", &driver_));
  }
}

OpenClRegistry::~OpenClRegistry() {
  halo_driver_release(driver_);
  halo_registry_release(registry_);
}

void OpenClTest::SetUp() {
  registry_ = std::make_unique<OpenClRegistry>();
  ASSERT_NE(registry_->driver(), nullptr) << "the opencl plugin did not load";
  size_t count = 0;
  HALO_ASSERT_OK(halo_driver_device_count(registry_->driver(), &count));
  if (count == 0) {
    halo_driver_info_t info = {};
    info.struct_size = sizeof(info);
    halo_status_free(halo_driver_query_info(registry_->driver(), &info));
    GTEST_SKIP() << "no OpenCL device: " << info.description;
  }
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_ASSERT_OK(halo_driver_query_device_info(registry_->driver(), 0, &info));
  HALO_ASSERT_OK(halo_driver_create_device(registry_->driver(), info.device_id,
                                           nullptr, &device_));
  caps_.struct_size = sizeof(caps_);
  HALO_ASSERT_OK(halo_device_query_capabilities(device_, &caps_));
}

void OpenClTest::TearDown() {
  halo_device_release(device_);
  registry_.reset();
}

DevicePtr OpenClTest::make_second_device() {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_EXPECT_OK(halo_device_query_info(device_, &info));
  halo_device_t* second = nullptr;
  HALO_EXPECT_OK(
      halo_driver_create_device(driver(), info.device_id, nullptr, &second));
  return DevicePtr(second);
}

SemaphorePtr OpenClTest::make_semaphore(uint64_t initial_value) {
  halo_semaphore_t* semaphore = nullptr;
  HALO_EXPECT_OK(halo_semaphore_create(device_, initial_value,
                                       HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  return SemaphorePtr(semaphore);
}

BufferPtr OpenClTest::make_buffer(uint64_t size) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                 HALO_BUFFER_USAGE_TRANSFER_TARGET |
                 HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  HALO_EXPECT_OK(halo_buffer_allocate(device_, &params, &buffer));
  return BufferPtr(buffer);
}

halo_status_t OpenClTest::build(const std::string& source, ExecutablePtr* out) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "opencl-c";
  params.data = source.data();
  params.data_size = source.size();
  halo_executable_t* executable = nullptr;
  halo_status_t status = halo_executable_create(device_, &params, &executable);
  out->reset(executable);
  return status;
}

void OpenClTest::write(halo_buffer_t* buffer, const std::vector<uint8_t>& bytes) {
  void* pointer = nullptr;
  HALO_ASSERT_OK(halo_buffer_map_range(buffer, 0, bytes.size(), &pointer));
  std::memcpy(pointer, bytes.data(), bytes.size());
  HALO_ASSERT_OK(halo_buffer_unmap_range(buffer, 0, bytes.size()));
}

std::vector<uint8_t> OpenClTest::read(halo_buffer_t* buffer, uint64_t size) {
  std::vector<uint8_t> bytes(size);
  void* pointer = nullptr;
  HALO_EXPECT_OK(halo_buffer_map_range(buffer, 0, size, &pointer));
  if (pointer == nullptr) return bytes;
  std::memcpy(bytes.data(), pointer, size);
  HALO_EXPECT_OK(halo_buffer_unmap_range(buffer, 0, size));
  return bytes;
}

halo_status_t OpenClTest::submit(halo_command_buffer_t* command_buffer,
                                 const std::vector<halo_semaphore_t*>& waits,
                                 const std::vector<uint64_t>& wait_values,
                                 const std::vector<halo_semaphore_t*>& signals,
                                 const std::vector<uint64_t>& signal_values,
                                 halo_device_t* on) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  info.command_buffer_count = command_buffer != nullptr ? 1 : 0;
  info.command_buffers = &command_buffer;
  return halo_device_queue_execute(on != nullptr ? on : device_, &info);
}

CommandBufferPtr OpenClTest::begin_command_buffer(
    halo_command_buffer_mode_t mode) {
  halo_command_buffer_t* command_buffer = nullptr;
  HALO_EXPECT_OK(halo_command_buffer_create(device_, mode, &command_buffer));
  if (command_buffer != nullptr) {
    HALO_EXPECT_OK(halo_command_buffer_begin(command_buffer));
  }
  return CommandBufferPtr(command_buffer);
}

}  // namespace halo_opencl_test
