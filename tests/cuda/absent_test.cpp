// The cuda plugin without a usable CUDA driver: it loads, lists no devices
// and says why in the driver's description. CTest runs NoLibrary with
// HALO_CUDA_LIBRARY naming a library that does not exist, and StubLibrary
// with it naming the toolkit's stub libcuda, whose cuInit always fails (as
// on a machine with the toolkit but no NVIDIA driver).
#include <gtest/gtest.h>

#include <string>

#include "halo/halo.h"

namespace {

// A registry with only the cuda plugin, from its build-tree manifest.
class CudaRegistry {
 public:
  CudaRegistry() {
    const char* paths[] = {HALO_TEST_CUDA_MANIFEST};
    halo_registry_options_t options = {};
    options.struct_size = sizeof(options);
    options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                    HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
    options.plugin_path_count = 1;
    options.plugin_paths = paths;
    halo_status_free(halo_registry_create(&options, &registry_));
    if (registry_ != nullptr) {
      halo_status_free(halo_registry_find_driver(registry_, "cuda", &driver_));
    }
  }
  ~CudaRegistry() {
    halo_driver_release(driver_);
    halo_registry_release(registry_);
  }
  halo_driver_t* driver() const { return driver_; }

 private:
  halo_registry_t* registry_ = nullptr;
  halo_driver_t* driver_ = nullptr;
};

// Loads the plugin and checks it has no devices, NOT_FOUND for device 0,
// and a description containing |reason|.
void expect_no_devices(const char* reason) {
  CudaRegistry registry;
  ASSERT_NE(registry.driver(), nullptr) << "the cuda plugin did not load";
  size_t count = 99;
  halo_status_t status = halo_driver_device_count(registry.driver(), &count);
  EXPECT_EQ(halo_status_code(status), HALO_STATUS_OK);
  halo_status_free(status);
  EXPECT_EQ(count, 0u);
  halo_device_t* device = nullptr;
  status = halo_driver_create_device(registry.driver(), 0, nullptr, &device);
  EXPECT_EQ(halo_status_code(status), HALO_STATUS_NOT_FOUND);
  halo_status_free(status);
  EXPECT_EQ(device, nullptr);
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  status = halo_driver_query_info(registry.driver(), &info);
  EXPECT_EQ(halo_status_code(status), HALO_STATUS_OK);
  halo_status_free(status);
  const std::string text = info.description;
  EXPECT_NE(text.find("no CUDA devices"), std::string::npos) << text;
  EXPECT_NE(text.find(reason), std::string::npos) << text;
}

TEST(NoLibrary, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("libhalo-test-no-such-cuda.so.1 could not be opened");
}

TEST(StubLibrary, LoadsWithNoDevicesAndTheReason) {
  expect_no_devices("cuInit failed");
}

}  // namespace
