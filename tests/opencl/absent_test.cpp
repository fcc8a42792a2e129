// The opencl plugin without OpenCL: it loads, lists no devices and says why
// in the driver's description. CTest runs NoPlatform with OCL_ICD_VENDORS
// naming an empty folder (the ICD loader then finds no platform) and
// NoLibrary with HALO_OPENCL_LIBRARY naming a library that does not exist.
#include <string>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

std::string description(halo_driver_t* driver) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  Status status(halo_driver_query_info(driver, &info));
  EXPECT_TRUE(status.ok()) << status.describe();
  return info.description;
}

// Loads the plugin and checks it has no devices, NOT_FOUND for device 0,
// and a description containing |reason|.
void expect_no_devices(const char* reason) {
  OpenClRegistry registry;
  ASSERT_NE(registry.driver(), nullptr) << "the opencl plugin did not load";
  size_t count = 99;
  HALO_ASSERT_OK(halo_driver_device_count(registry.driver(), &count));
  EXPECT_EQ(count, 0u);
  halo_device_t* device = nullptr;
  Status status(halo_driver_create_device(registry.driver(), 0, nullptr, &device));
  EXPECT_EQ(status.code(), HALO_STATUS_NOT_FOUND) << status.describe();
  EXPECT_EQ(device, nullptr);
  const std::string text = description(registry.driver());
  EXPECT_NE(text.find("no OpenCL devices"), std::string::npos) << text;
  EXPECT_NE(text.find(reason), std::string::npos) << text;
}

TEST(NoPlatform, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("CL_PLATFORM_NOT_FOUND_KHR");
}

TEST(NoLibrary, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("libhalo-test-no-such-opencl.so.1 could not be opened");
}

}  // namespace
}  // namespace halo_opencl_test
