// HALO_PLUGINS_DISABLE and HALO_PLUGINS_SELECT: comma-separated globs on
// plugin names, disable first, applied from the manifest before any dlopen
// (DESIGN.md §6, "filters").
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using FilterTest = LoaderTest;

// What happened to each plugin: "loaded", or the filter named in the reason.
std::map<std::string, std::string> outcomes(const std::vector<halo::PluginRecord>& records) {
  std::map<std::string, std::string> result;
  for (const halo::PluginRecord& record : records) {
    std::string outcome = "loaded";
    if (!record.loaded()) {
      outcome = std::string(halo::code_name(record.skip_code));
      for (const char* filter : {"HALO_PLUGINS_DISABLE", "HALO_PLUGINS_SELECT"}) {
        if (record.skip_reason.find(filter) != std::string::npos) {
          outcome += std::string(" ") + filter;
        }
      }
    }
    result[record.name] = outcome;
  }
  return result;
}

constexpr const char* kSelected = "CANCELLED HALO_PLUGINS_SELECT";
constexpr const char* kDisabled = "CANCELLED HALO_PLUGINS_DISABLE";

TEST_F(FilterTest, SelectKeepsOnlyMatchingNames) {
  EnvironmentGuard::set("HALO_PLUGINS_SELECT", "test_al*,test_beta");
  const halo::Registry registry = scan({kGoodDir});
  const std::vector<halo::PluginRecord> records = registry.plugins();
  EXPECT_EQ(outcomes(records), (std::map<std::string, std::string>{
                                   {"test_alpha", "loaded"},
                                   {"test_beta", "loaded"},
                                   {"test_good", kSelected},
                                   {"test_multi", kSelected},
                                   {"test_omega", kSelected},
                               }))
      << describe(records);
  EXPECT_EQ(driver_names(registry), (std::vector<std::string>{"test_alpha", "test_beta"}));
}

TEST_F(FilterTest, DisableDropsMatchingNames) {
  EnvironmentGuard::set("HALO_PLUGINS_DISABLE", "*a,test_g?od");
  const std::vector<halo::PluginRecord> records = scan({kGoodDir}).plugins();
  EXPECT_EQ(outcomes(records), (std::map<std::string, std::string>{
                                   {"test_alpha", kDisabled},
                                   {"test_beta", kDisabled},
                                   {"test_good", kDisabled},
                                   {"test_multi", "loaded"},
                                   {"test_omega", kDisabled},
                               }))
      << describe(records);
}

// A plugin both disabled and selected is disabled: the disable list is
// applied first.
TEST_F(FilterTest, DisableWinsOverSelect) {
  EnvironmentGuard::set("HALO_PLUGINS_DISABLE", "test_alpha");
  EnvironmentGuard::set("HALO_PLUGINS_SELECT", "test_al*,test_beta");
  const std::vector<halo::PluginRecord> records = scan({kGoodDir}).plugins();
  EXPECT_EQ(outcomes(records), (std::map<std::string, std::string>{
                                   {"test_alpha", kDisabled},
                                   {"test_beta", "loaded"},
                                   {"test_good", kSelected},
                                   {"test_multi", kSelected},
                                   {"test_omega", kSelected},
                               }))
      << describe(records);
}

// Filters read the manifest's name, so a filtered plugin is never opened: a
// text file posing as a library and a query that returns NULL are not tried.
TEST_F(FilterTest, FilteredPluginsAreNeverOpened) {
  EnvironmentGuard::set("HALO_PLUGINS_DISABLE", "test_not_so,test_query_null");
  const std::vector<halo::PluginRecord> records = scan({kBrokenDir}).plugins();
  for (const char* manifest : {"not_so.json", "test_query_null.json"}) {
    const halo::PluginRecord* record = find_by_manifest(records, manifest);
    ASSERT_NE(record, nullptr) << describe(records);
    EXPECT_EQ(record->skip_code, HALO_STATUS_CANCELLED) << describe(records);
    EXPECT_NE(record->skip_reason.find("HALO_PLUGINS_DISABLE"), std::string::npos)
        << record->skip_reason;
  }
}

TEST_F(FilterTest, FiltersApplyToEnvironmentSourcesToo) {
  EnvironmentGuard::set("HALO_ADD_PLUGIN_FILES", kGoodDir);
  EnvironmentGuard::set("HALO_PLUGINS_SELECT", "test_omega");
  const halo::Registry registry = scan({});
  EXPECT_EQ(driver_names(registry), (std::vector<std::string>{"test_omega"}))
      << describe(registry.plugins());
  EXPECT_EQ(registry.plugins().size(), 5u);
}

}  // namespace
}  // namespace halo_test
