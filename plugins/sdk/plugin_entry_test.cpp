// Unit tests of HALO_SDK_DEFINE_PLUGIN_QUERY: the exported query refuses a
// host it cannot serve (saying why, naming the plugin) and otherwise
// returns the descriptor and makes the host the SDK's current host.
#include "halo/sdk/plugin_entry.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace {

halo_status_t create_test_driver(const halo_host_interface_t*,
                                 halo_driver_t** out_driver) {
  *out_driver = nullptr;
  return HALO_OK;
}

}  // namespace

// This test binary's halo_plugin_query, as a plugin would define it.
HALO_SDK_DEFINE_PLUGIN_QUERY("entry_test", "9.8.7", &create_test_driver)

namespace halo::sdk {
namespace {

// The fake host with a log that records each message, so the tests can
// read what the plugin said.
class PluginEntryTest : public testing::LeakCheckedTest {
 protected:
  void SetUp() override {
    LeakCheckedTest::SetUp();
    previous_host_ = current_host();
    host_ = *testing::fake_host_interface();
    host_.self = &logged_;
    host_.log = [](void* self, halo_log_level_t level, const char* message) {
      EXPECT_EQ(level, HALO_LOG_LEVEL_ERROR);
      static_cast<std::vector<std::string>*>(self)->push_back(message);
    };
    params_.struct_size = sizeof(params_);
    params_.abi_version_min = HALO_ABI_VERSION;
    params_.abi_version_max = HALO_ABI_VERSION;
    params_.host = &host_;
  }
  void TearDown() override {
    set_current_host(previous_host_);
    LeakCheckedTest::TearDown();
  }

  halo_host_interface_t host_ = {};
  halo_plugin_query_params_t params_ = {};
  std::vector<std::string> logged_;

 private:
  const halo_host_interface_t* previous_host_ = nullptr;
};

TEST_F(PluginEntryTest, AnswersAHostThatCanLoadThePlugin) {
  set_current_host(nullptr);
  const halo_plugin_descriptor_t* descriptor = halo_plugin_query(&params_);
  ASSERT_NE(descriptor, nullptr);
  EXPECT_EQ(descriptor->struct_size, sizeof(halo_plugin_descriptor_t));
  EXPECT_EQ(descriptor->abi_version, HALO_ABI_VERSION);
  EXPECT_STREQ(descriptor->name, "entry_test");
  EXPECT_STREQ(descriptor->version, "9.8.7");
  EXPECT_EQ(descriptor->create_driver, &create_test_driver);
  EXPECT_EQ(current_host(), &host_);
  EXPECT_TRUE(logged_.empty());
  // The same descriptor every time.
  EXPECT_EQ(halo_plugin_query(&params_), descriptor);
}

TEST_F(PluginEntryTest, AcceptsARangeAroundItsAbi) {
  params_.abi_version_min = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR, 0);
  params_.abi_version_max = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR, 99);
  EXPECT_NE(halo_plugin_query(&params_), nullptr);
}

TEST_F(PluginEntryTest, RefusesNullParamsAndNullHost) {
  set_current_host(nullptr);
  EXPECT_EQ(halo_plugin_query(nullptr), nullptr);
  params_.host = nullptr;
  EXPECT_EQ(halo_plugin_query(&params_), nullptr);
  EXPECT_EQ(current_host(), nullptr);
}

TEST_F(PluginEntryTest, RefusesAHostInterfaceSmallerThanAbi10) {
  set_current_host(nullptr);
  // Everything up to ABI 1.0's last entry, status_from_code.
  const uint32_t needed = offsetof(halo_host_interface_t, status_from_code) +
                          sizeof(halo_host_interface_t::status_from_code);
  host_.struct_size = needed - 1;
  EXPECT_EQ(halo_plugin_query(&params_), nullptr);
  EXPECT_EQ(current_host(), nullptr);
  ASSERT_EQ(logged_.size(), 1u);
  const std::string expected =
      "host interface is " + std::to_string(host_.struct_size) +
      " bytes; the entry_test plugin needs the " +
      std::to_string(needed) + " bytes of ABI 1.0";
  EXPECT_EQ(logged_[0], expected);
}

TEST_F(PluginEntryTest, RefusesAnAbiRangeThatExcludesItsAbi) {
  set_current_host(nullptr);
  const uint32_t next_major = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR + 1, 0);
  params_.abi_version_min = next_major;
  params_.abi_version_max = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR + 1, 3);
  EXPECT_EQ(halo_plugin_query(&params_), nullptr);
  // Below the plugin's version as well.
  params_.abi_version_min = HALO_MAKE_VERSION(0, 1);
  params_.abi_version_max = HALO_MAKE_VERSION(0, 9);
  EXPECT_EQ(halo_plugin_query(&params_), nullptr);
  EXPECT_EQ(current_host(), nullptr);
  ASSERT_EQ(logged_.size(), 2u);
  const std::string ours = std::to_string(HALO_ABI_VERSION_MAJOR) + "." +
                           std::to_string(HALO_ABI_VERSION_MINOR);
  const std::string next = std::to_string(HALO_ABI_VERSION_MAJOR + 1);
  EXPECT_EQ(logged_[0], "the entry_test plugin speaks ABI " + ours +
                            "; the host accepts " + next + ".0 to " + next +
                            ".3");
  EXPECT_EQ(logged_[1],
            "the entry_test plugin speaks ABI " + ours +
                "; the host accepts 0.1 to 0.9");
}

}  // namespace
}  // namespace halo::sdk
