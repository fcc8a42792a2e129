// Ordering is deterministic: records in discovery order, drivers by priority
// then name, devices by driver, then type, then name (DESIGN.md §6).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using OrderTest = LoaderTest;

// The paths in an order that is neither by name nor by priority.
std::vector<std::string> scrambled_paths() {
  return {good_manifest("test_good"), good_manifest("test_multi"),
          good_manifest("test_beta"), good_manifest("test_omega"),
          good_manifest("test_alpha")};
}

const std::vector<std::string> kMultiDevices = {
    "gpu", "igpu", "vgpu", "npu", "other", "cpu a", "cpu b"};

TEST_F(OrderTest, RecordsFollowDiscoveryOrder) {
  const std::vector<halo::PluginRecord> records = scan(scrambled_paths()).plugins();
  EXPECT_EQ(names(records), (std::vector<std::string>{"test_good", "test_multi",
                                                      "test_beta", "test_omega",
                                                      "test_alpha"}));
}

TEST_F(OrderTest, DriversByPriorityThenName) {
  const halo::Registry registry = scan(scrambled_paths());
  EXPECT_EQ(driver_names(registry),
            (std::vector<std::string>{"test_omega", "test_alpha", "test_beta",
                                      "test_good", "test_multi"}));
}

TEST_F(OrderTest, DevicesByDriverThenTypeThenName) {
  const halo::Registry registry = scan(scrambled_paths());
  std::vector<std::string> expected = {"test device", "test device", "test device",
                                       "test device"};
  expected.insert(expected.end(), kMultiDevices.begin(), kMultiDevices.end());
  EXPECT_EQ(device_names(registry), expected);

  const std::vector<halo::DeviceEntry> devices = registry.devices();
  ASSERT_EQ(devices.size(), expected.size());
  const std::vector<std::size_t> driver_of = {0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4};
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].driver_index, driver_of[i]) << "device " << i;
  }
}

// The driver's own fresh enumeration sorts the same way.
TEST_F(OrderTest, DriverDevicesByTypeThenName) {
  const halo::Registry registry = scan({good_manifest("test_multi")});
  std::vector<std::string> listed;
  for (const halo_device_info_t& info : registry.driver(0).devices()) {
    listed.push_back(halo::to_string(info.name));
  }
  EXPECT_EQ(listed, kMultiDevices);
}

// Device |i| of the registry creates the device that its info describes.
TEST_F(OrderTest, CreatedDevicesMatchTheirInfo) {
  const halo::Registry registry = scan(scrambled_paths());
  const std::vector<halo::DeviceEntry> devices = registry.devices();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const halo_device_info_t info = registry.create_device(i).info();
    EXPECT_EQ(halo::to_string(info.name), halo::to_string(devices[i].info.name));
    EXPECT_EQ(info.device_id, devices[i].info.device_id);
    EXPECT_EQ(info.type, devices[i].info.type);
  }
}

TEST_F(OrderTest, FindDriverByName) {
  const halo::Registry registry = scan(scrambled_paths());
  const halo::Driver beta = registry.find_driver("test_beta");
  ASSERT_TRUE(beta);
  EXPECT_EQ(halo::to_string(beta.info().name), "test_beta");
  EXPECT_FALSE(registry.find_driver("test_missing"));
}

}  // namespace
}  // namespace halo_test
