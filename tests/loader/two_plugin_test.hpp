// A fixture with devices of two plugins that have real host semaphores: the
// cpu plugin and halo-cts's reference peer (cts_peer), for tests of what
// libhalo builds across plugins (fences, wait handles, awaits).
#ifndef HALO_TESTS_LOADER_TWO_PLUGIN_TEST_HPP_
#define HALO_TESTS_LOADER_TWO_PLUGIN_TEST_HPP_

#if defined(HALO_TEST_HAVE_CPU_PLUGIN) && defined(HALO_TEST_PEER_LIBRARY)

#include <string>

#include "loader_test_util.hpp"

namespace halo_test {

class TwoPluginTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST, HALO_TEST_PEER_LIBRARY});
    ASSERT_EQ(registry_.driver_count(), 2u) << describe(registry_.plugins());
    cpu_ = first_device_of("cpu");
    other_cpu_ = first_device_of("cpu");
    peer_ = first_device_of("cts_peer");
  }

  // A new device for the first device |plugin|'s driver lists.
  halo::Device first_device_of(const std::string& plugin) const {
    const halo::Driver driver = registry_.find_driver(plugin);
    return driver.create_device(driver.devices().at(0).device_id);
  }

  halo::Registry registry_;
  halo::Device cpu_;
  // A second device of the cpu plugin: one plugin, two devices.
  halo::Device other_cpu_;
  halo::Device peer_;
};

}  // namespace halo_test

#endif  // HALO_TEST_HAVE_CPU_PLUGIN && HALO_TEST_PEER_LIBRARY
#endif  // HALO_TESTS_LOADER_TWO_PLUGIN_TEST_HPP_
