// Where the loader looks for plugins, in which order, and what it records
// about each (DESIGN.md §6, "discovery order").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using DiscoveryTest = LoaderTest;

std::vector<std::string> sources(const std::vector<halo::PluginRecord>& records) {
  std::vector<std::string> result;
  for (const halo::PluginRecord& record : records) {
    result.push_back(record.source);
  }
  return result;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST_F(DiscoveryTest, LoadedRecordHasEveryField) {
  const std::string manifest = good_manifest("test_omega");
  const std::vector<halo::PluginRecord> records = scan({manifest}).plugins();
  ASSERT_EQ(records.size(), 1u) << describe(records);
  const halo::PluginRecord& record = records[0];
  EXPECT_TRUE(record.loaded());
  EXPECT_EQ(record.name, "test_omega");
  EXPECT_EQ(record.manifest_path, manifest);
  EXPECT_TRUE(ends_with(record.library_path, "/libhalo_plugin_test_omega.so"))
      << record.library_path;
  EXPECT_EQ(record.source, "api");
  EXPECT_EQ(record.abi_version, HALO_ABI_VERSION);
  EXPECT_EQ(record.priority, 10);
  EXPECT_EQ(record.skip_code, HALO_STATUS_OK);
  EXPECT_EQ(record.skip_reason, "");
}

// A folder's manifests are taken in sorted name order; its libraries (*.so)
// are not manifests and are not taken.
TEST_F(DiscoveryTest, FolderManifestsLoadInSortedNameOrder) {
  const std::vector<halo::PluginRecord> records = scan({kGoodDir}).plugins();
  EXPECT_EQ(names(records), (std::vector<std::string>{"test_alpha", "test_beta",
                                                      "test_good", "test_multi",
                                                      "test_omega"}))
      << describe(records);
  for (const halo::PluginRecord& record : records) {
    EXPECT_TRUE(record.loaded()) << describe(records);
  }
}

// A library named directly needs no manifest: the name and version come from
// its descriptor.
TEST_F(DiscoveryTest, LibraryPathLoadsWithoutManifest) {
  const std::vector<halo::PluginRecord> records =
      scan({good_library("test_good")}).plugins();
  ASSERT_EQ(records.size(), 1u) << describe(records);
  EXPECT_TRUE(records[0].loaded()) << describe(records);
  EXPECT_EQ(records[0].name, "test_good");
  EXPECT_EQ(records[0].manifest_path, "");
  EXPECT_TRUE(ends_with(records[0].library_path, "/libhalo_plugin_test_good.so"));
  EXPECT_EQ(records[0].abi_version, HALO_ABI_VERSION);
}

TEST_F(DiscoveryTest, NoPathsAndNoFoldersFindsNothing) {
  const halo::Registry registry = scan({});
  EXPECT_TRUE(registry.plugins().empty()) << describe(registry.plugins());
  EXPECT_EQ(registry.driver_count(), 0u);
  EXPECT_TRUE(registry.devices().empty());
}

// HALO_PLUGIN_FILES replaces HALO_ADD_PLUGIN_FILES and every folder, though
// not the paths the application passed.
TEST_F(DiscoveryTest, PluginFilesReplacesEverySourceBelowIt) {
  EnvironmentGuard::set("HALO_PLUGIN_FILES",
                        good_manifest("test_beta") + ":" + good_manifest("test_omega"));
  EnvironmentGuard::set("HALO_ADD_PLUGIN_FILES", good_manifest("test_good"));
  EnvironmentGuard::set("XDG_DATA_DIRS", kXdgDir);
  const std::vector<halo::PluginRecord> records =
      scan({good_manifest("test_multi")}, 0).plugins();
  EXPECT_EQ(names(records),
            (std::vector<std::string>{"test_multi", "test_beta", "test_omega"}))
      << describe(records);
  EXPECT_EQ(sources(records), (std::vector<std::string>{"api", "HALO_PLUGIN_FILES",
                                                        "HALO_PLUGIN_FILES"}));
}

TEST_F(DiscoveryTest, PluginFilesTakesFolders) {
  EnvironmentGuard::set("HALO_PLUGIN_FILES", kGoodDir);
  const std::vector<halo::PluginRecord> records = scan({}, 0).plugins();
  EXPECT_EQ(records.size(), 5u) << describe(records);
  for (const halo::PluginRecord& record : records) {
    EXPECT_EQ(record.source, "HALO_PLUGIN_FILES");
    EXPECT_TRUE(record.loaded()) << describe(records);
  }
}

TEST_F(DiscoveryTest, AddPluginFilesAddsAfterTheApiPaths) {
  EnvironmentGuard::set("HALO_ADD_PLUGIN_FILES",
                        good_manifest("test_beta") + ":" + good_library("test_omega"));
  const std::vector<halo::PluginRecord> records =
      scan({good_manifest("test_alpha")}).plugins();
  EXPECT_EQ(names(records),
            (std::vector<std::string>{"test_alpha", "test_beta", "test_omega"}))
      << describe(records);
  EXPECT_EQ(sources(records),
            (std::vector<std::string>{"api", "HALO_ADD_PLUGIN_FILES",
                                      "HALO_ADD_PLUGIN_FILES"}));
  for (const halo::PluginRecord& record : records) {
    EXPECT_TRUE(record.loaded()) << describe(records);
  }
}

TEST_F(DiscoveryTest, IgnoreEnvironmentIgnoresFilesAndFilters) {
  EnvironmentGuard::set("HALO_PLUGIN_FILES", good_manifest("test_beta"));
  EnvironmentGuard::set("HALO_ADD_PLUGIN_FILES", good_manifest("test_omega"));
  EnvironmentGuard::set("HALO_PLUGINS_DISABLE", "*");
  EnvironmentGuard::set("HALO_PLUGINS_SELECT", "nothing");
  const std::vector<halo::PluginRecord> records =
      scan({good_manifest("test_alpha")},
           HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT | HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS)
          .plugins();
  ASSERT_EQ(names(records), (std::vector<std::string>{"test_alpha"})) << describe(records);
  EXPECT_TRUE(records[0].loaded()) << describe(records);
}

TEST_F(DiscoveryTest, XdgDataDirsFolderIsSearched) {
  EnvironmentGuard::set("XDG_DATA_DIRS", "/nonexistent/halo-test:" + kXdgDir);
  const std::vector<halo::PluginRecord> records = scan({}, 0).plugins();
  const std::vector<const halo::PluginRecord*> alpha = find_by_name(records, "test_alpha");
  ASSERT_EQ(alpha.size(), 1u) << describe(records);
  EXPECT_EQ(alpha[0]->source, "XDG_DATA_DIRS");
  EXPECT_TRUE(alpha[0]->loaded()) << describe(records);
  EXPECT_EQ(alpha[0]->manifest_path, kXdgDir + "/halo/plugins.d/test_alpha.json");
}

TEST_F(DiscoveryTest, NoDefaultFoldersSkipsXdgDataDirs) {
  EnvironmentGuard::set("XDG_DATA_DIRS", kXdgDir);
  const std::vector<halo::PluginRecord> records =
      scan({}, HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS).plugins();
  EXPECT_TRUE(records.empty()) << describe(records);
}

// A default folder that does not exist is normal (most machines have no
// /etc/halo/plugins.d) and adds nothing: no record, let alone a failed dlopen
// of the folder's path.
TEST_F(DiscoveryTest, MissingDefaultFoldersAddNoRecords) {
  EnvironmentGuard::set("XDG_DATA_DIRS", "/nonexistent/halo-test-a:/nonexistent/halo-test-b");
  const std::vector<halo::PluginRecord> records = scan({}, 0).plugins();
  const bool have_etc = std::filesystem::is_directory("/etc/halo/plugins.d");
  for (const halo::PluginRecord& record : records) {
    EXPECT_NE(record.source, "XDG_DATA_DIRS") << describe(records);
    if (!have_etc) {
      EXPECT_NE(record.source, "etc") << describe(records);
    }
  }
}

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)
// Run from the build tree, libhalo finds the build's own plugin folder (it
// holds a BUILD_TREE marker) and the cpu plugin in it.
TEST_F(DiscoveryTest, BuildTreeFolderHoldsTheCpuPlugin) {
  EnvironmentGuard::set("XDG_DATA_DIRS", "/nonexistent/halo-test");
  const std::vector<halo::PluginRecord> records = scan({}, 0).plugins();
  const std::vector<const halo::PluginRecord*> cpu = find_by_name(records, "cpu");
  ASSERT_EQ(cpu.size(), 1u) << describe(records);
  EXPECT_EQ(cpu[0]->source, "build-tree");
  EXPECT_TRUE(cpu[0]->loaded()) << describe(records);
}
#endif

// Two registries are two scans with equal results; destroying one leaves the
// other's drivers working.
TEST_F(DiscoveryTest, EachRegistryIsItsOwnSnapshot) {
  halo::Registry first = scan({good_manifest("test_good")});
  const halo::Registry second = scan({good_manifest("test_good")});
  const halo::Driver driver = second.driver(0);
  first.reset();
  EXPECT_EQ(halo::to_string(driver.info().name), "test_good");
  EXPECT_EQ(device_names(second), (std::vector<std::string>{"test device"}));
}

}  // namespace
}  // namespace halo_test
