// HALO_LOADER_DEBUG: skipped plugins are logged to stderr with the "halo:"
// prefix, and a plugin's own log line reaches it too (DESIGN.md §6).
#include <gtest/gtest.h>

#include <string>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using LoaderDebugTest = LoaderTest;

// Scans the good plugin and the query_null plugin, returning stderr.
std::string scan_capturing_stderr() {
  testing::internal::CaptureStderr();
  {
    const halo::Registry registry =
        scan({good_manifest("test_good"), kBrokenDir + "/test_query_null.json"});
  }
  return testing::internal::GetCapturedStderr();
}

TEST_F(LoaderDebugTest, DebugLevelLogsTheSkippedPlugin) {
  EnvironmentGuard::set("HALO_LOADER_DEBUG", "debug");
  const std::string output = scan_capturing_stderr();
  EXPECT_NE(output.find("halo:"), std::string::npos) << output;
  EXPECT_NE(output.find("test_query_null"), std::string::npos) << output;
  EXPECT_NE(output.find("returned NULL"), std::string::npos) << output;
  // The plugin's own message, sent through the host interface's log.
  EXPECT_NE(output.find("no supported hardware generation"), std::string::npos)
      << output;
}

TEST_F(LoaderDebugTest, WarnLevelLogsTheSkippedPlugin) {
  EnvironmentGuard::set("HALO_LOADER_DEBUG", "warn");
  const std::string output = scan_capturing_stderr();
  EXPECT_NE(output.find("halo:"), std::string::npos) << output;
  EXPECT_NE(output.find("test_query_null"), std::string::npos) << output;
}

TEST_F(LoaderDebugTest, SilentWithoutTheVariable) {
  const std::string output = scan_capturing_stderr();
  EXPECT_EQ(output.find("halo:"), std::string::npos) << output;
}

}  // namespace
}  // namespace halo_test
