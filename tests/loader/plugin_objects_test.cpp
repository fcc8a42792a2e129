// What a plugin hands over at run time is checked where it is handed over
// (DESIGN.md §6, "each plugin fails alone"): a device or semaphore that breaks
// the ABI is refused with INTERNAL naming the plugin and what is wrong, and
// never called into; a status the plugin made itself, not through the host
// interface, becomes INTERNAL naming the plugin; a device count no machine
// has is refused instead of allocated.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

struct BrokenDeviceCase {
  // The misbehaving plugin; also the test's name.
  const char* plugin;
  // Every one of these must appear in the status message.
  std::vector<std::string> reason_parts;
};

void PrintTo(const BrokenDeviceCase& broken, std::ostream* out) { *out << broken.plugin; }

const BrokenDeviceCase kBrokenDevices[] = {
    {"test_device_no_vtable", {"no vtable"}},
    {"test_device_wrong_type", {"type tag", "driver"}},
    {"test_device_short_vtable", {"8 bytes", "ABI 1.0"}},
    {"test_device_no_query_info", {"query_info"}},
};

// Expects |status| to be INTERNAL from |function|, naming |plugin| and each
// of |parts|, then frees it.
void expect_plugin_fault(halo_status_t status, const char* function, const char* plugin,
                         const std::vector<std::string>& parts) {
  const std::string message = halo_status_message(status);
  expect_status(status, HALO_STATUS_INTERNAL, function);
  EXPECT_NE(message.find(std::string("'") + plugin + "'"), std::string::npos) << message;
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "message '" << message << "' lacks '" << part << "'";
  }
}

class BrokenDeviceTest : public LoaderTest,
                         public ::testing::WithParamInterface<BrokenDeviceCase> {};

TEST_P(BrokenDeviceTest, IsRefusedWhenCreated) {
  const BrokenDeviceCase& broken = GetParam();
  const halo::Registry registry = scan({misbehaving_manifest(broken.plugin)});
  ASSERT_EQ(driver_names(registry), std::vector<std::string>{broken.plugin})
      << describe(registry.plugins());

  halo_device_t* device = nullptr;
  expect_plugin_fault(halo_registry_create_device(registry.get(), 0, nullptr, &device),
                      "halo_registry_create_device", broken.plugin, broken.reason_parts);
  EXPECT_EQ(device, nullptr);

  // The same check through the driver, and again: a refused device leaves
  // the driver usable.
  const halo::Driver driver = registry.driver(0);
  const halo_device_id_t id = registry.devices().at(0).info.device_id;
  for (int attempt = 0; attempt < 2; ++attempt) {
    expect_plugin_fault(halo_driver_create_device(driver.get(), id, nullptr, &device),
                        "halo_driver_create_device", broken.plugin, broken.reason_parts);
    EXPECT_EQ(device, nullptr);
  }
}

INSTANTIATE_TEST_SUITE_P(Misbehaving, BrokenDeviceTest,
                         ::testing::ValuesIn(kBrokenDevices),
                         [](const ::testing::TestParamInfo<BrokenDeviceCase>& info) {
                           return std::string(info.param.plugin);
                         });

using PluginObjectsTest = LoaderTest;

// Semaphores are checked like devices: every entry of their vtable is
// required, so one without query is refused before anyone can poll it.
TEST_F(PluginObjectsTest, SemaphoreWithoutQueryIsRefusedWhenCreated) {
  const halo::Registry registry = scan({misbehaving_manifest("test_semaphore_no_query")});
  const halo::Device device = registry.create_device(0);
  halo_semaphore_t* semaphore = nullptr;
  expect_plugin_fault(
      halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAG_NONE, &semaphore),
      "halo_semaphore_create", "test_semaphore_no_query", {"semaphore", "query"});
  EXPECT_EQ(semaphore, nullptr);
}

// Before: the forged pointer went back to the caller, whose
// halo_status_free aborted in free().
TEST_F(PluginObjectsTest, ForgedStatusBecomesInternalNamingThePlugin) {
  const halo::Registry registry =
      scan({misbehaving_manifest("test_device_forged_status")});
  const halo::Device device = registry.create_device(0);
  const char* plugin = "test_device_forged_status";
  expect_plugin_fault(halo_device_wait_idle(device.get(), HALO_DEADLINE_INFINITE_PAST),
                      "halo_device_wait_idle", plugin, {"host interface"});
  expect_plugin_fault(halo_device_queue_flush(device.get(), HALO_QUEUE_AFFINITY_ANY),
                      "halo_device_queue_flush", plugin, {"host interface"});
  halo_semaphore_t* semaphore = nullptr;
  expect_plugin_fault(
      halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAG_NONE, &semaphore),
      "halo_semaphore_create", plugin, {"host interface"});
  EXPECT_EQ(semaphore, nullptr);
}

constexpr const char* kCountPlugin = "test_device_count_from_env";
const std::string kSizeMax = std::to_string(SIZE_MAX);

// A plugin that reports SIZE_MAX devices while it is scanned is skipped with
// that reason, not with a std::length_error's text.
TEST_F(PluginObjectsTest, AbsurdDeviceCountSkipsThePluginAtScan) {
  EnvironmentGuard::set("HALO_TEST_PLUGIN_DEVICE_COUNT", kSizeMax);
  const halo::Registry registry = scan({misbehaving_manifest(kCountPlugin)});
  const std::vector<halo::PluginRecord> records = registry.plugins();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].loaded());
  EXPECT_EQ(halo::code_name(records[0].skip_code), halo::code_name(HALO_STATUS_INTERNAL))
      << records[0].skip_reason;
  for (const std::string& part :
       {kSizeMax, std::string("65536"), std::string(kCountPlugin)}) {
    EXPECT_NE(records[0].skip_reason.find(part), std::string::npos)
        << "reason '" << records[0].skip_reason << "' lacks '" << part << "'";
  }
}

// Before: halo_driver_query_device_info let std::length_error out of the C
// ABI, and halo_driver_device_count passed the count on.
TEST_F(PluginObjectsTest, AbsurdDeviceCountIsRefusedByEveryDriverQuery) {
  const halo::Registry registry = scan({misbehaving_manifest(kCountPlugin)});
  const halo::Driver driver = registry.driver(0);
  EnvironmentGuard::set("HALO_TEST_PLUGIN_DEVICE_COUNT", kSizeMax);

  halo_device_info_t info{};
  info.struct_size = sizeof(info);
  expect_plugin_fault(halo_driver_query_device_info(driver.get(), 0, &info),
                      "halo_driver_query_device_info", kCountPlugin, {kSizeMax, "65536"});
  size_t count = 0;
  expect_plugin_fault(halo_driver_device_count(driver.get(), &count),
                      "halo_driver_device_count", kCountPlugin, {kSizeMax, "65536"});

  // One more than the limit is refused too; a real count still works.
  EnvironmentGuard::set("HALO_TEST_PLUGIN_DEVICE_COUNT", "65537");
  expect_plugin_fault(halo_driver_device_count(driver.get(), &count),
                      "halo_driver_device_count", kCountPlugin, {"65537"});
  EnvironmentGuard::set("HALO_TEST_PLUGIN_DEVICE_COUNT", "1");
  EXPECT_EQ(halo_driver_device_count(driver.get(), &count), HALO_OK);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(halo_driver_query_device_info(driver.get(), 0, &info), HALO_OK);
}

}  // namespace
}  // namespace halo_test
