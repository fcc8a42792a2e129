// What the vulkan driver and its devices report: the driver's description,
// the device's identity (on lavapipe, exactly what Mesa's software device
// is), its capabilities, and which semaphores its queue handles natively.
#include <cstdlib>
#include <cstring>
#include <string>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

using DeviceTest = VulkanTest;

TEST_F(DeviceTest, DriverNamesItselfAndCountsItsDevices) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_ASSERT_OK(halo_driver_query_info(driver(), &info));
  EXPECT_STREQ(info.name, "vulkan");
  EXPECT_STRNE(info.version, "");
  size_t count = 0;
  HALO_ASSERT_OK(halo_driver_device_count(driver(), &count));
  // "Vulkan 1.3.239 loader; 1 device": the loader's version, then the count.
  const std::string description = info.description;
  EXPECT_EQ(description.rfind("Vulkan 1.", 0), 0u) << description;
  const std::string devices =
      std::to_string(count) + (count == 1 ? " device" : " devices");
  EXPECT_NE(description.find("; " + devices), std::string::npos) << description;
}

TEST_F(DeviceTest, ValidationIsActiveWhenRequested) {
  // CTest runs this binary once more with HALO_VULKAN_VALIDATION=fatal
  // (vulkan_validation.all); that run proves nothing unless the layer is
  // really there.
  const char* requested = std::getenv("HALO_VULKAN_VALIDATION");
  if (requested == nullptr || requested[0] == '\0' ||
      std::string(requested) == "0") {
    GTEST_SKIP() << "HALO_VULKAN_VALIDATION is not set";
  }
  const std::string mode = std::string(requested) == "fatal" ? "fatal" : "on";
  const std::string description = driver_description(driver());
  EXPECT_NE(description.find("; validation " + mode +
                             " (VK_LAYER_KHRONOS_validation with "
                             "synchronization validation)"),
            std::string::npos)
      << description << " (install the Khronos validation layer for this run)";
}

TEST_F(DeviceTest, InfoIdentifiesTheDevice) {
  EXPECT_EQ(info().device_id, 0u);
  EXPECT_STRNE(info().name, "");
  EXPECT_STRNE(info().vendor, "");
  EXPECT_STRNE(info().driver_version, "");
  // A UUID of zeros would make two devices indistinguishable.
  const uint8_t zeros[sizeof(info().uuid)] = {};
  EXPECT_NE(std::memcmp(info().uuid, zeros, sizeof(zeros)), 0);
  // The created device reports what enumeration did.
  halo_device_info_t created = {};
  created.struct_size = sizeof(created);
  HALO_ASSERT_OK(halo_device_query_info(device(), &created));
  EXPECT_STREQ(created.name, info().name);
  EXPECT_EQ(created.vendor_id, info().vendor_id);
  EXPECT_EQ(std::memcmp(created.uuid, info().uuid, sizeof(zeros)), 0);
  if (!is_lavapipe(info())) {
    GTEST_SKIP() << "device 0 is " << info().name
                 << ", not lavapipe: its identity is not checked further";
  }
  // Mesa has no PCI vendor id; it uses the Khronos vendor id
  // VK_VENDOR_ID_MESA, which the plugin names "Mesa".
  EXPECT_EQ(info().vendor_id, 0x10005u);
  EXPECT_STREQ(info().vendor, "Mesa");
  EXPECT_EQ(info().type, static_cast<uint32_t>(HALO_DEVICE_TYPE_CPU));
  EXPECT_EQ(std::string(info().driver_version).rfind("Mesa ", 0), 0u)
      << info().driver_version;
}

TEST_F(DeviceTest, CapabilitiesOfferEverythingOnOneQueue) {
  EXPECT_EQ(capabilities().queue_count, 1u);
  const halo_device_features_t all =
      HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
      HALO_DEVICE_FEATURE_BUFFERS | HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
      HALO_DEVICE_FEATURE_DISPATCH | HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT;
  EXPECT_EQ(capabilities().features, all);
  EXPECT_STREQ(capabilities().executable_formats, "spirv");
  // Buffers must be placeable at the alignment, which the plugin raises to
  // at least 4 so that whole-word fills and copies stay on the native path.
  const uint64_t alignment = capabilities().min_buffer_alignment;
  EXPECT_GE(alignment, 4u);
  EXPECT_EQ(alignment & (alignment - 1), 0u) << alignment;
  EXPECT_GT(capabilities().max_buffer_size, 0u);
  // Every device can map memory for the host.
  EXPECT_NE(capabilities().memory_types & HALO_MEMORY_TYPE_HOST_VISIBLE, 0u);
  EXPECT_GT(capabilities().max_semaphore_value_difference, 0u);
  EXPECT_LE(capabilities().max_semaphore_value_difference,
            HALO_SEMAPHORE_MAX_VALUE);
  if (!is_lavapipe(info())) GTEST_SKIP() << "device 0 is not lavapipe";
  // Lavapipe's memory is host memory: one type with every property.
  EXPECT_EQ(capabilities().memory_types,
            HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE |
                HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED);
  // Lavapipe puts no limit on timeline differences (UINT64_MAX), which the
  // plugin clamps to the largest payload; vulkan_limits runs the limit
  // checks under a layer that lowers it.
  if (std::getenv("HALO_TEST_TIMELINE_LIMIT") == nullptr) {
    EXPECT_EQ(capabilities().max_semaphore_value_difference,
              HALO_SEMAPHORE_MAX_VALUE);
  }
}

TEST_F(DeviceTest, OnlyItsOwnSemaphoresAreNative) {
  halo_semaphore_compatibility_t compatibility = 0;
  SemaphorePtr own = make_semaphore();
  HALO_ASSERT_OK(
      halo_device_semaphore_compatibility(device(), own.get(), &compatibility));
  EXPECT_EQ(compatibility,
            static_cast<uint32_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));
  // A second VkDevice cannot wait on or signal this one's VkSemaphore, and
  // a cpu semaphore is no VkSemaphore at all: both go through the host.
  const uint32_t host_only = HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
                             HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
  SemaphorePtr second = make_semaphore(0, second_device());
  HALO_ASSERT_OK(halo_device_semaphore_compatibility(device(), second.get(),
                                                     &compatibility));
  EXPECT_EQ(compatibility, host_only);
  SemaphorePtr foreign = make_semaphore(0, cpu_device());
  HALO_ASSERT_OK(halo_device_semaphore_compatibility(device(), foreign.get(),
                                                     &compatibility));
  EXPECT_EQ(compatibility, host_only);
}

}  // namespace
}  // namespace halo_vulkan_test
