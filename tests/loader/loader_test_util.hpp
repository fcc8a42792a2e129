// Shared helpers of the loader tests: where the test plugins are, a fixture
// that gives each test a clean loader environment, and record look-ups.
#ifndef HALO_TESTS_LOADER_LOADER_TEST_UTIL_HPP_
#define HALO_TESTS_LOADER_LOADER_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "halo/halo.hpp"

namespace halo_test {

inline const std::string kGoodDir = HALO_TEST_GOOD_DIR;
inline const std::string kBrokenDir = HALO_TEST_BROKEN_DIR;
inline const std::string kXdgDir = HALO_TEST_XDG_DIR;
inline const std::string kMisbehavingDir = HALO_TEST_MISBEHAVING_DIR;

// Returns the manifest of good plugin |name| ("test_alpha").
std::string good_manifest(std::string_view name);
// Returns the library of good plugin |name|.
std::string good_library(std::string_view name);
// Returns the manifest of misbehaving plugin |name| ("test_device_no_vtable").
std::string misbehaving_manifest(std::string_view name);

// A fresh, empty folder under the system's temporary folder, removed with
// everything in it on destruction.
class TemporaryFolder {
 public:
  TemporaryFolder();
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Unsets every environment variable the loader reads and restores them all
// on destruction, so a test neither sees the caller's settings nor leaks its
// own into the next test.
class EnvironmentGuard {
 public:
  EnvironmentGuard();
  ~EnvironmentGuard();
  EnvironmentGuard(const EnvironmentGuard&) = delete;
  EnvironmentGuard& operator=(const EnvironmentGuard&) = delete;

  // Sets |name| to |value| until the guard is destroyed.
  static void set(const char* name, const std::string& value);

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Every loader test starts from a clean environment.
class LoaderTest : public ::testing::Test {
 private:
  EnvironmentGuard environment_;
};

// Scans |paths| only: no default folders, unless |flags| says otherwise.
halo::Registry scan(const std::vector<std::string>& paths,
                    halo_registry_flags_t flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS);

// Returns the record whose manifest's file name is |file_name|, or NULL.
const halo::PluginRecord* find_by_manifest(const std::vector<halo::PluginRecord>& records,
                                           std::string_view file_name);
// Returns the records named |name|.
std::vector<const halo::PluginRecord*> find_by_name(
    const std::vector<halo::PluginRecord>& records, std::string_view name);

// Returns the records' names, in order.
std::vector<std::string> names(const std::vector<halo::PluginRecord>& records);
// Returns the loaded drivers' names, in registry order.
std::vector<std::string> driver_names(const halo::Registry& registry);
// Returns the registry's device names, in registry order.
std::vector<std::string> device_names(const halo::Registry& registry);

// One line per record, for failure messages that show what the loader did.
std::string describe(const std::vector<halo::PluginRecord>& records);

// Expects |status| to have |code| and a message containing |substring|, then
// frees it.
void expect_status(halo_status_t status, halo_status_code_t code,
                   std::string_view substring = {});

}  // namespace halo_test

#endif  // HALO_TESTS_LOADER_LOADER_TEST_UTIL_HPP_
