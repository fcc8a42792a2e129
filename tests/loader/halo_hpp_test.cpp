// The C++ layer, halo.hpp: errors carry the status's code and message, handles
// count references correctly, and the registry helpers match the C API.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "halo/halo.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

TEST(HaloHppErrorTest, ErrorCarriesCodeAndMessage) {
  const halo::Error error(halo_status_create(HALO_STATUS_INTERNAL, "boom"));
  EXPECT_EQ(error.code(), HALO_STATUS_INTERNAL);
  EXPECT_EQ(error.message(), "boom");
  EXPECT_STREQ(error.what(), "INTERNAL: boom");

  const halo::Error copy = error;
  EXPECT_EQ(copy.code(), HALO_STATUS_INTERNAL);
  EXPECT_EQ(copy.message(), "boom");
}

TEST(HaloHppErrorTest, CheckThrowsOnlyErrors) {
  EXPECT_NO_THROW(halo::check(HALO_OK));
  try {
    halo::check(halo_status_format(HALO_STATUS_NOT_FOUND, "no %s", "thing"));
    FAIL() << "check did not throw";
  } catch (const halo::Error& error) {
    EXPECT_EQ(error.code(), HALO_STATUS_NOT_FOUND);
    EXPECT_EQ(error.message(), "no thing");
  }
}

TEST(HaloHppErrorTest, HelpersNameThings) {
  EXPECT_EQ(halo::code_name(HALO_STATUS_DEADLINE_EXCEEDED), "DEADLINE_EXCEEDED");
  EXPECT_EQ(halo::version_string(HALO_MAKE_VERSION(1, 12)), "1.12");
  const char unterminated[4] = {'a', 'b', 'c', 'd'};
  EXPECT_EQ(halo::to_string(unterminated), "abcd");
  EXPECT_EQ(halo::string_or_empty(nullptr), "");
  EXPECT_EQ(halo::string_or_empty("text"), "text");
}

class HaloHppTest : public LoaderTest {};

TEST_F(HaloHppTest, RegistryListsPluginsDriversAndDevices) {
  const halo::Registry registry = halo::Registry::create(
      {good_manifest("test_good")}, HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS);
  const std::vector<halo::PluginRecord> plugins = registry.plugins();
  ASSERT_EQ(plugins.size(), 1u);
  EXPECT_TRUE(plugins[0].loaded());
  EXPECT_EQ(plugins[0].name, "test_good");

  const std::vector<halo::Driver> drivers = registry.drivers();
  ASSERT_EQ(drivers.size(), 1u);
  const halo_driver_info_t info = drivers[0].info();
  EXPECT_EQ(halo::to_string(info.name), "test_good");
  EXPECT_EQ(halo::to_string(info.version), "1.2.3-test");

  const std::vector<halo::DeviceEntry> devices = registry.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(halo::to_string(devices[0].info.name), "test device");
  EXPECT_EQ(devices[0].driver_index, 0u);
}

TEST_F(HaloHppTest, CopiesRetainAndMovesTransfer) {
  halo::Driver driver;
  {
    const halo::Registry registry = scan({good_manifest("test_good")});
    halo::Driver first = registry.driver(0);
    driver = first;  // A second reference.
    EXPECT_EQ(driver, first);
    halo::Driver moved = std::move(first);
    EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): moved-from is empty.
    EXPECT_TRUE(moved);
  }
  // The registry and the other references are gone; this one still works.
  EXPECT_EQ(halo::to_string(driver.info().name), "test_good");

  halo_driver_t* raw = driver.release();
  EXPECT_FALSE(driver);
  halo::Driver adopted(raw);
  halo::Driver borrowed(halo::retain_ref, raw);
  adopted.reset();
  EXPECT_EQ(halo::to_string(borrowed.info().name), "test_good");
}

TEST_F(HaloHppTest, DeviceInfoCapabilitiesAndErrors) {
  const halo::Registry registry = scan({good_manifest("test_good")});
  const halo::Device device = registry.create_device(0);
  EXPECT_EQ(halo::to_string(device.info().name), "test device");
  const halo_device_capabilities_t caps = device.capabilities();
  EXPECT_EQ(caps.queue_count, 0u);
  EXPECT_EQ(caps.max_semaphore_value_difference, HALO_SEMAPHORE_MAX_VALUE);
  try {
    (void)device.create_semaphore(0);
    FAIL() << "the test device has no semaphores";
  } catch (const halo::Error& error) {
    EXPECT_EQ(error.code(), HALO_STATUS_UNIMPLEMENTED);
    EXPECT_NE(error.message().find("create_semaphore"), std::string::npos)
        << error.message();
  }
}

TEST_F(HaloHppTest, FindDriverAndMoveRegistry) {
  halo::Registry registry = scan({good_manifest("test_good")});
  EXPECT_TRUE(registry.find_driver("test_good"));
  EXPECT_FALSE(registry.find_driver("test_missing"));
  halo::Registry moved = std::move(registry);
  EXPECT_FALSE(registry);  // NOLINT(bugprone-use-after-move): moved-from is empty.
  EXPECT_EQ(moved.driver_count(), 1u);
  EXPECT_THROW((void)moved.driver(5), halo::Error);
}

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)
// The semaphore wrappers against a real implementation, the cpu plugin's.
// Only polls (HALO_DEADLINE_INFINITE_PAST) and already-reached values: nothing
// here waits on another thread.
TEST_F(HaloHppTest, SemaphoreWrappersOnTheCpuPlugin) {
  const halo::Registry registry = scan({HALO_TEST_CPU_MANIFEST});
  ASSERT_EQ(registry.driver_count(), 1u) << describe(registry.plugins());
  const halo::Device device = registry.create_device(0);
  const halo::Semaphore semaphore = device.create_semaphore(5);
  EXPECT_EQ(semaphore.query(), 5u);
  EXPECT_EQ(device.semaphore_compatibility(semaphore),
            static_cast<halo_semaphore_compatibility_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));

  const halo::Semaphore copy = semaphore;  // Retains: both name one semaphore.
  copy.signal(7);
  EXPECT_EQ(semaphore.query(), 7u);
  EXPECT_TRUE(semaphore.wait(7, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_FALSE(semaphore.wait(8, HALO_DEADLINE_INFINITE_PAST));
  try {
    semaphore.signal(6);
    FAIL() << "signalling a smaller value succeeded";
  } catch (const halo::Error& error) {
    EXPECT_EQ(error.code(), HALO_STATUS_INVALID_ARGUMENT);
  }
  EXPECT_EQ(semaphore.query(), 7u);

  semaphore.fail(HALO_STATUS_ABORTED, "stopped on purpose");
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      if (attempt == 0) {
        (void)semaphore.query();
      } else {
        (void)semaphore.wait(100, HALO_DEADLINE_INFINITE_PAST);
      }
      FAIL() << "a failed semaphore answered OK";
    } catch (const halo::Error& error) {
      EXPECT_EQ(error.code(), HALO_STATUS_ABORTED);
      EXPECT_EQ(error.message(), "stopped on purpose");
    }
  }
}
#endif

}  // namespace
}  // namespace halo_test
