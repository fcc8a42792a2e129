// Shared helpers of the stress tests: a registry over the build tree's
// plugins only, and status checks that print the code and message.
#ifndef HALO_TESTS_STRESS_UTIL_HPP_
#define HALO_TESTS_STRESS_UTIL_HPP_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "halo/halo.h"

namespace halo_stress {

// Returns "OK" or "CODE: message" and frees |status|.
std::string describe(halo_status_t status);

#define STRESS_ASSERT_OK(expression)                                   \
  do {                                                                 \
    const std::string text_ = ::halo_stress::describe(expression);    \
    ASSERT_EQ(text_, "OK") << #expression;                            \
  } while (0)

#define STRESS_EXPECT_OK(expression)                                   \
  do {                                                                 \
    const std::string text_ = ::halo_stress::describe(expression);    \
    EXPECT_EQ(text_, "OK") << #expression;                            \
  } while (0)

// Creates a registry of exactly the build tree's plugins (no environment, no
// system folders), so the tests see the plugins this build made; with
// |allocator| as its host allocator when not NULL.
halo_status_t create_build_tree_registry(
    halo_registry_t** out_registry,
    const halo_allocator_t* allocator = nullptr);

// Submits a barrier on |device| waiting for (|wait|, |wait_value|) and
// signalling each of |signals| to its value in |signal_values|.
halo_status_t execute(halo_device_t* device, halo_semaphore_t* wait,
                      uint64_t wait_value,
                      std::vector<halo_semaphore_t*> signals,
                      std::vector<uint64_t> signal_values);

// The first device of each driver that has one, as driver name and the
// registry-wide device index.
struct PluginDevice {
  std::string plugin;
  size_t registry_index;
};
std::vector<PluginDevice> first_device_of_each_plugin(halo_registry_t* registry);

}  // namespace halo_stress

#endif  // HALO_TESTS_STRESS_UTIL_HPP_
