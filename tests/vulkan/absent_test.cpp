// The vulkan plugin without a usable Vulkan: it loads, its driver lists no
// devices and its description says why, and the registry around it works;
// and without the validation layer it was asked for, it runs on and says
// so. CTest runs each suite in a process of its own, because the plugin and
// the Vulkan loader read their environment once:
//   NoLibrary      HALO_VULKAN_LIBRARY names a library that does not exist;
//   NotALoader     HALO_VULKAN_LIBRARY names a library without Vulkan in it;
//   EmptyDriverList VK_DRIVER_FILES names an empty manifest;
//   MissingDriverFile VK_ICD_FILENAMES names a manifest that does not exist;
//   DriverWithoutLibrary VK_DRIVER_FILES names a manifest whose driver
//                  library does not exist;
//   MissingValidationLayer HALO_VULKAN_VALIDATION=fatal with VK_LAYER_PATH
//                  naming an empty folder.
#include <string>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

// Loads the plugins and checks that the vulkan plugin loaded with no
// devices, NOT_FOUND for device 0, and a description holding |reason|; and
// that the cpu plugin beside it still offers its device.
void expect_no_devices(const std::string& reason) {
  TestRegistry registry;
  ASSERT_NE(registry.registry(), nullptr);
  ASSERT_NE(registry.vulkan(), nullptr) << "the vulkan plugin did not load";
  size_t plugins = 0;
  HALO_ASSERT_OK(halo_registry_plugin_count(registry.registry(), &plugins));
  bool recorded = false;
  for (size_t i = 0; i < plugins; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    HALO_ASSERT_OK(
        halo_registry_plugin_record(registry.registry(), i, &record));
    if (std::string(record.name) != "vulkan") continue;
    recorded = true;
    EXPECT_EQ(record.state, static_cast<uint32_t>(HALO_PLUGIN_STATE_LOADED));
    EXPECT_EQ(record.skip_code, HALO_STATUS_OK) << record.skip_reason;
  }
  EXPECT_TRUE(recorded) << "the registry has no record of the vulkan plugin";
  size_t count = 99;
  HALO_ASSERT_OK(halo_driver_device_count(registry.vulkan(), &count));
  EXPECT_EQ(count, 0u);
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  Status past(halo_driver_query_device_info(registry.vulkan(), 0, &info));
  EXPECT_EQ(past.code(), HALO_STATUS_OUT_OF_RANGE) << past.describe();
  halo_device_t* device = nullptr;
  Status created(
      halo_driver_create_device(registry.vulkan(), 0, nullptr, &device));
  EXPECT_EQ(created.code(), HALO_STATUS_NOT_FOUND) << created.describe();
  EXPECT_EQ(device, nullptr);
  const std::string description = driver_description(registry.vulkan());
  EXPECT_EQ(description.rfind("no Vulkan devices: ", 0), 0u) << description;
  EXPECT_NE(description.find(reason), std::string::npos)
      << "'" << reason << "' missing from: " << description;
  // The registry lists only the cpu plugin's device.
  size_t devices = 0;
  HALO_ASSERT_OK(halo_registry_device_count(registry.registry(), &devices));
  size_t cpu_devices = 0;
  ASSERT_NE(registry.cpu(), nullptr) << "the cpu plugin did not load";
  HALO_ASSERT_OK(halo_driver_device_count(registry.cpu(), &cpu_devices));
  EXPECT_EQ(devices, cpu_devices);
}

TEST(NoLibrary, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("cannot open libhalo-test-no-such-vulkan.so.1");
}

TEST(NotALoader, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("libc.so.6 has no vkGetInstanceProcAddr");
}

// With no driver, the Vulkan loader refuses to create an instance at all.
TEST(EmptyDriverList, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER");
}

TEST(MissingDriverFile, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER");
}

TEST(DriverWithoutLibrary, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER");
}

TEST(MissingValidationLayer, RunsWithoutItAndSaysSo) {
  TestRegistry registry;
  ASSERT_NE(registry.vulkan(), nullptr) << "the vulkan plugin did not load";
  const std::string description = driver_description(registry.vulkan());
  EXPECT_NE(description.find("; validation requested (fatal) but "
                             "VK_LAYER_KHRONOS_validation is not installed: "
                             "running without it"),
            std::string::npos)
      << description;
  size_t count = 0;
  HALO_ASSERT_OK(halo_driver_device_count(registry.vulkan(), &count));
  if (count == 0) GTEST_SKIP() << "no Vulkan device: " << description;
  // The devices work as without validation.
  halo_device_t* raw = nullptr;
  HALO_ASSERT_OK(
      halo_driver_create_device(registry.vulkan(), 0, nullptr, &raw));
  DevicePtr device(raw);
  halo_semaphore_t* semaphore = nullptr;
  HALO_ASSERT_OK(halo_semaphore_create(device.get(), 0,
                                       HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  SemaphorePtr owner(semaphore);
  HALO_ASSERT_OK(halo_semaphore_signal(semaphore, 3));
  HALO_EXPECT_OK(
      halo_semaphore_wait(semaphore, 3, HALO_DEADLINE_INFINITE_PAST));
}

}  // namespace
}  // namespace halo_vulkan_test
