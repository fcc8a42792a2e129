// Shared helpers of the vulkan plugin tests.
#include "vulkan_test_util.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

namespace halo_vulkan_test {

std::string Status::describe() const {
  if (ok()) return "OK";
  return std::string(halo_status_code_name(code())) + ": " + message();
}

void expect_status(const Status& status, halo_status_code_t code,
                   const std::vector<std::string>& words) {
  EXPECT_EQ(status.code(), code) << status.describe();
  const std::string message = status.message();
  for (const std::string& word : words) {
    EXPECT_NE(message.find(word), std::string::npos)
        << "'" << word << "' missing from: " << message;
  }
}

halo_time_ns_t deadline_in_ms(int64_t milliseconds) {
  return halo_deadline_after_ns(milliseconds * 1000000);
}

std::string driver_description(halo_driver_t* driver) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  Status status(halo_driver_query_info(driver, &info));
  EXPECT_TRUE(status.ok()) << status.describe();
  return std::string(info.description,
                     strnlen(info.description, sizeof(info.description)));
}

TestRegistry::TestRegistry() {
  const char* paths[] = {HALO_TEST_VULKAN_MANIFEST, HALO_TEST_CPU_MANIFEST};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 2;
  options.plugin_paths = paths;
  halo_status_free(halo_registry_create(&options, &registry_));
  if (registry_ == nullptr) return;
  halo_status_free(halo_registry_find_driver(registry_, "vulkan", &vulkan_));
  halo_status_free(halo_registry_find_driver(registry_, "cpu", &cpu_));
}

TestRegistry::~TestRegistry() {
  halo_driver_release(cpu_);
  halo_driver_release(vulkan_);
  halo_registry_release(registry_);
}

bool is_lavapipe(const halo_device_info_t& info) {
  return info.vendor_id == 0x10005 &&
         std::strncmp(info.name, "llvmpipe", 8) == 0;
}

void VulkanTest::SetUp() {
  registry_ = std::make_unique<TestRegistry>();
  ASSERT_NE(registry_->vulkan(), nullptr) << "the vulkan plugin did not load";
  size_t count = 0;
  HALO_ASSERT_OK(halo_driver_device_count(driver(), &count));
  if (count == 0) {
    GTEST_SKIP() << "no Vulkan device: " << driver_description(driver());
  }
  info_.struct_size = sizeof(info_);
  HALO_ASSERT_OK(halo_driver_query_device_info(driver(), 0, &info_));
  halo_device_t* device = nullptr;
  HALO_ASSERT_OK(
      halo_driver_create_device(driver(), info_.device_id, nullptr, &device));
  device_.reset(device);
  caps_.struct_size = sizeof(caps_);
  HALO_ASSERT_OK(halo_device_query_capabilities(device, &caps_));
}

void VulkanTest::TearDown() {
  // Devices go before the registry, as an application would release them.
  cpu_device_.reset();
  second_device_.reset();
  device_.reset();
  registry_.reset();
}

halo_device_t* VulkanTest::second_device() {
  if (second_device_ == nullptr) {
    halo_device_t* device = nullptr;
    HALO_EXPECT_OK(
        halo_driver_create_device(driver(), info_.device_id, nullptr, &device));
    second_device_.reset(device);
  }
  return second_device_.get();
}

halo_device_t* VulkanTest::cpu_device() {
  if (cpu_device_ == nullptr) {
    EXPECT_NE(registry_->cpu(), nullptr) << "the cpu plugin did not load";
    if (registry_->cpu() == nullptr) return nullptr;
    halo_device_t* device = nullptr;
    HALO_EXPECT_OK(
        halo_driver_create_device(registry_->cpu(), 0, nullptr, &device));
    cpu_device_.reset(device);
  }
  return cpu_device_.get();
}

SemaphorePtr VulkanTest::make_semaphore(uint64_t initial_value,
                                        halo_device_t* on) {
  halo_semaphore_t* semaphore = nullptr;
  HALO_EXPECT_OK(halo_semaphore_create(on != nullptr ? on : device(),
                                       initial_value, HALO_SEMAPHORE_FLAG_NONE,
                                       &semaphore));
  return SemaphorePtr(semaphore);
}

BufferPtr VulkanTest::make_buffer(uint64_t size, halo_device_t* on) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type =
      HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                 HALO_BUFFER_USAGE_TRANSFER_TARGET |
                 HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  HALO_EXPECT_OK(
      halo_buffer_allocate(on != nullptr ? on : device(), &params, &buffer));
  return BufferPtr(buffer);
}

void VulkanTest::write(halo_buffer_t* buffer,
                       const std::vector<uint32_t>& words) {
  const uint64_t size = words.size() * sizeof(uint32_t);
  void* pointer = nullptr;
  HALO_ASSERT_OK(halo_buffer_map_range(buffer, 0, size, &pointer));
  std::memcpy(pointer, words.data(), size);
  HALO_ASSERT_OK(halo_buffer_unmap_range(buffer, 0, size));
}

std::vector<uint32_t> VulkanTest::read(halo_buffer_t* buffer, size_t count) {
  std::vector<uint32_t> words(count);
  const uint64_t size = count * sizeof(uint32_t);
  void* pointer = nullptr;
  HALO_EXPECT_OK(halo_buffer_map_range(buffer, 0, size, &pointer));
  if (pointer == nullptr) return words;
  std::memcpy(words.data(), pointer, size);
  HALO_EXPECT_OK(halo_buffer_unmap_range(buffer, 0, size));
  return words;
}

CommandBufferPtr VulkanTest::begin_command_buffer(
    halo_command_buffer_mode_t mode, halo_device_t* on) {
  halo_command_buffer_t* command_buffer = nullptr;
  HALO_EXPECT_OK(halo_command_buffer_create(on != nullptr ? on : device(), mode,
                                            &command_buffer));
  if (command_buffer != nullptr) {
    HALO_EXPECT_OK(halo_command_buffer_begin(command_buffer));
  }
  return CommandBufferPtr(command_buffer);
}

CommandBufferPtr VulkanTest::fill_command_buffer(halo_buffer_t* buffer,
                                                 uint32_t pattern) {
  CommandBufferPtr command_buffer = begin_command_buffer();
  HALO_EXPECT_OK(halo_command_buffer_fill(command_buffer.get(), buffer, 0,
                                          HALO_WHOLE_BUFFER, &pattern,
                                          sizeof(pattern)));
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
  return command_buffer;
}

halo_status_t VulkanTest::submit(halo_command_buffer_t* command_buffer,
                                 const std::vector<halo_semaphore_t*>& waits,
                                 const std::vector<uint64_t>& wait_values,
                                 const std::vector<halo_semaphore_t*>& signals,
                                 const std::vector<uint64_t>& signal_values) {
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
  return halo_device_queue_execute(device(), &info);
}

halo_status_t VulkanTest::wait(halo_semaphore_t* semaphore, uint64_t value) {
  return halo_semaphore_wait(semaphore, value, deadline_in_ms(kGenerousMs));
}

halo_status_t VulkanTest::create_executable(const void* data, size_t size,
                                            ExecutablePtr* out,
                                            halo_device_t* on) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "spirv";
  params.data = data;
  params.data_size = size;
  halo_executable_t* executable = nullptr;
  halo_status_t status = halo_executable_create(on != nullptr ? on : device(),
                                                &params, &executable);
  out->reset(executable);
  return status;
}

std::vector<uint8_t> kernel_spirv(const std::string& name) {
  const std::string path =
      std::string(HALO_TEST_KERNEL_DIR) + "/" + name + ".spirv";
  std::ifstream stream(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(stream)),
                             std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty())
      << "cannot read " << path << "; build the halo_cts_kernels target";
  return bytes;
}

}  // namespace halo_vulkan_test
