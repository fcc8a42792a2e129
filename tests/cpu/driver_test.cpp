// The cpu driver and device: info, enumeration, capabilities and semaphore
// compatibility.
#include <cstring>

#include "cpu_test_util.hpp"

namespace halo_cpu_test {
namespace {

using DriverTest = CpuTest;

TEST_F(DriverTest, DriverInfoNamesTheCpuPlugin) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_ASSERT_OK(halo_driver_query_info(driver(), &info));
  EXPECT_STREQ(info.name, "cpu");
  EXPECT_GT(std::strlen(info.version), 0u);
}

TEST_F(DriverTest, OneCpuDevice) {
  size_t count = 0;
  HALO_ASSERT_OK(halo_driver_device_count(driver(), &count));
  EXPECT_EQ(count, 1u);
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_ASSERT_OK(halo_driver_query_device_info(driver(), 0, &info));
  EXPECT_EQ(info.type, static_cast<uint32_t>(HALO_DEVICE_TYPE_CPU));
  EXPECT_EQ(info.device_id, 0u);
  EXPECT_STREQ(info.name, "host CPU");
  EXPECT_GT(std::strlen(info.vendor), 0u);
  halo_device_info_t device_info = {};
  device_info.struct_size = sizeof(device_info);
  HALO_ASSERT_OK(halo_device_query_info(device(), &device_info));
  EXPECT_STREQ(device_info.name, "host CPU");
}

TEST_F(DriverTest, UnknownDeviceIdIsNotFound) {
  halo_device_t* device = nullptr;
  Status status(halo_driver_create_device(driver(), 1, nullptr, &device));
  EXPECT_EQ(status.code(), HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(device, nullptr);
}

TEST_F(DriverTest, Capabilities) {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  HALO_ASSERT_OK(halo_device_query_capabilities(device(), &caps));
  EXPECT_EQ(caps.features,
            HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
                HALO_DEVICE_FEATURE_BUFFERS |
                HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                HALO_DEVICE_FEATURE_DISPATCH);
  EXPECT_EQ(caps.queue_count, 1u);
  EXPECT_EQ(caps.max_semaphore_value_difference, HALO_SEMAPHORE_MAX_VALUE);
  EXPECT_EQ(caps.memory_types,
            HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE |
                HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED);
  EXPECT_EQ(caps.min_buffer_alignment, 64u);
  EXPECT_STREQ(caps.executable_formats, "cpu-so");
}

TEST_F(DriverTest, OwnSemaphoresAreFullyCompatible) {
  SemaphorePtr own = make_semaphore(0);
  DevicePtr other = make_device();
  halo_semaphore_compatibility_t compatibility = 0;
  HALO_ASSERT_OK(halo_device_semaphore_compatibility(device(), own.get(),
                                                     &compatibility));
  EXPECT_EQ(compatibility,
            static_cast<uint32_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));
  HALO_ASSERT_OK(halo_device_semaphore_compatibility(other.get(), own.get(),
                                                     &compatibility));
  EXPECT_EQ(compatibility,
            static_cast<uint32_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));
}

TEST_F(DriverTest, CommandBuffersAreAvailable) {
  halo_command_buffer_t* command_buffer = nullptr;
  HALO_EXPECT_OK(halo_command_buffer_create(
      device(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT, &command_buffer));
  EXPECT_NE(command_buffer, nullptr);
  halo_command_buffer_release(command_buffer);
}

TEST_F(DriverTest, DevicesComeAndGo) {
  for (int i = 0; i < 10; ++i) {
    DevicePtr device = make_device();
    ASSERT_NE(device, nullptr);
  }
}

}  // namespace
}  // namespace halo_cpu_test
