// Each broken plugin is skipped alone, with the right code and a reason that
// says what is wrong, while a good plugin scanned beside it still loads
// (DESIGN.md §6, "each plugin fails alone").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

struct BrokenCase {
  // The manifest's file name in the broken folder; also the test's name.
  const char* manifest;
  halo_status_code_t code;
  // Every one of these must appear in the skip reason.
  std::vector<std::string> reason_parts;
};

void PrintTo(const BrokenCase& broken, std::ostream* out) { *out << broken.manifest; }

const BrokenCase kBrokenCases[] = {
    {"bad_json.json", HALO_STATUS_INVALID_ARGUMENT, {"JSON"}},
    {"missing_field.json", HALO_STATUS_INVALID_ARGUMENT, {"plugin.library_path"}},
    {"bad_priority.json", HALO_STATUS_INVALID_ARGUMENT, {"plugin.priority"}},
    // Numbers that would wrap into their fields: 65537.0 into ABI 1.0 and
    // 2^32 + 1 into priority 1.
    {"abi_major_range.json",
     HALO_STATUS_INVALID_ARGUMENT,
     {"plugin.abi_version", "65537", "65535"}},
    {"priority_range.json",
     HALO_STATUS_INVALID_ARGUMENT,
     {"plugin.priority", "4294967297", "2147483647"}},
    // The library is a text file: only a refusal before dlopen gives this code.
    {"manifest_v2.json", HALO_STATUS_FAILED_PRECONDITION, {"ABI", "2.0", "1.0"}},
    {"not_so.json", HALO_STATUS_UNAVAILABLE, {"dlopen", "invalid ELF header"}},
    {"test_no_entry.json", HALO_STATUS_NOT_FOUND, {"halo_plugin_query"}},
    {"test_query_null.json",
     HALO_STATUS_FAILED_PRECONDITION,
     {"returned NULL", "no supported hardware generation"}},
    {"test_descriptor_v2.json", HALO_STATUS_FAILED_PRECONDITION, {"ABI", "2.0"}},
    {"test_name_mismatch.json", HALO_STATUS_INVALID_ARGUMENT, {"someone_else"}},
    {"test_create_fails.json",
     HALO_STATUS_PERMISSION_DENIED,
     {"create_driver", "cannot open /dev/halo-test"}},
    {"test_enumerate_fails.json",
     HALO_STATUS_DATA_LOSS,
     {"enumerate_devices", "the device list was lost"}},
    // Drivers that break the ABI are refused when created (each plugin fails
    // alone), not recorded as loaded to fail or crash later.
    {"test_driver_no_vtable.json", HALO_STATUS_INTERNAL, {"create_driver", "no vtable"}},
    {"test_driver_wrong_type.json",
     HALO_STATUS_INTERNAL,
     {"create_driver", "type tag", "device"}},
    {"test_driver_short_vtable.json",
     HALO_STATUS_INTERNAL,
     {"create_driver", "8 bytes", "ABI 1.0"}},
    {"test_driver_no_enumerate.json",
     HALO_STATUS_INTERNAL,
     {"create_driver", "enumerate_devices"}},
    // Its create_driver fails with a status it made itself: no abort in free().
    {"test_forged_status.json",
     HALO_STATUS_INTERNAL,
     {"test_forged_status", "host interface"}},
    {"test_dup_copy.json", HALO_STATUS_ALREADY_EXISTS, {"duplicate"}},
    {"test_dup_symlink.json", HALO_STATUS_ALREADY_EXISTS, {"duplicate"}},
};

class BrokenPluginTest : public LoaderTest,
                         public ::testing::WithParamInterface<BrokenCase> {};

TEST_P(BrokenPluginTest, IsSkippedWithItsReasonWhileTheGoodOneLoads) {
  const BrokenCase& broken = GetParam();
  const halo::Registry registry = scan({good_manifest("test_good"), kBrokenDir});
  const std::vector<halo::PluginRecord> records = registry.plugins();

  const halo::PluginRecord* record = find_by_manifest(records, broken.manifest);
  ASSERT_NE(record, nullptr) << "no record for " << broken.manifest << ":\n"
                             << describe(records);
  EXPECT_FALSE(record->loaded()) << describe(records);
  EXPECT_EQ(halo::code_name(record->skip_code), halo::code_name(broken.code))
      << "reason: " << record->skip_reason;
  for (const std::string& part : broken.reason_parts) {
    EXPECT_NE(record->skip_reason.find(part), std::string::npos)
        << "reason '" << record->skip_reason << "' lacks '" << part << "'";
  }
  EXPECT_EQ(record->source, "api");

  const halo::PluginRecord* good = find_by_manifest(records, "test_good.json");
  ASSERT_NE(good, nullptr) << describe(records);
  EXPECT_TRUE(good->loaded()) << describe(records);
  EXPECT_TRUE(registry.find_driver("test_good"));
}

INSTANTIATE_TEST_SUITE_P(Broken, BrokenPluginTest, ::testing::ValuesIn(kBrokenCases),
                         [](const ::testing::TestParamInfo<BrokenCase>& info) {
                           std::string name = info.param.manifest;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

using BrokenFolderTest = LoaderTest;

// The whole broken folder: one record per manifest, in sorted file order, and
// only the good plugin and the first test_dup become drivers.
TEST_F(BrokenFolderTest, EveryManifestHasARecordAndOnlyGoodOnesLoad) {
  const halo::Registry registry = scan({good_manifest("test_good"), kBrokenDir});
  const std::vector<halo::PluginRecord> records = registry.plugins();
  ASSERT_EQ(records.size(), 1 + 21u) << describe(records);

  std::vector<std::string> manifests;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const std::string& path = records[i].manifest_path;
    manifests.push_back(path.substr(path.rfind('/') + 1));
  }
  const std::vector<std::string> expected = {
      "abi_major_range.json",
      "bad_json.json",
      "bad_priority.json",
      "manifest_v2.json",
      "missing_field.json",
      "not_so.json",
      "priority_range.json",
      "test_create_fails.json",
      "test_descriptor_v2.json",
      "test_driver_no_enumerate.json",
      "test_driver_no_vtable.json",
      "test_driver_short_vtable.json",
      "test_driver_wrong_type.json",
      "test_dup.json",
      "test_dup_copy.json",
      "test_dup_symlink.json",
      "test_enumerate_fails.json",
      "test_forged_status.json",
      "test_name_mismatch.json",
      "test_no_entry.json",
      "test_query_null.json",
  };
  EXPECT_EQ(manifests, expected);

  EXPECT_EQ(driver_names(registry), (std::vector<std::string>{"test_dup", "test_good"}));
  EXPECT_EQ(device_names(registry),
            (std::vector<std::string>{"test device", "test device"}));
  for (const char* skipped :
       {"test_create_fails", "test_enumerate_fails", "test_query_null",
        "test_descriptor_v2", "test_driver_no_vtable", "test_driver_wrong_type",
        "test_driver_short_vtable", "test_driver_no_enumerate", "test_forged_status"}) {
    EXPECT_FALSE(registry.find_driver(skipped)) << skipped;
  }
}

TEST_F(BrokenFolderTest, FirstOfTheDuplicatesLoads) {
  const std::vector<halo::PluginRecord> records = scan({kBrokenDir}).plugins();
  const halo::PluginRecord* first = find_by_manifest(records, "test_dup.json");
  ASSERT_NE(first, nullptr) << describe(records);
  EXPECT_TRUE(first->loaded()) << describe(records);
  EXPECT_EQ(find_by_name(records, "test_dup").size(), 3u) << describe(records);
}

// A manifest of another major version records that version.
TEST_F(BrokenFolderTest, RefusedManifestRecordsItsVersion) {
  const std::vector<halo::PluginRecord> records = scan({kBrokenDir}).plugins();
  const halo::PluginRecord* record = find_by_manifest(records, "manifest_v2.json");
  ASSERT_NE(record, nullptr) << describe(records);
  EXPECT_EQ(record->name, "test_manifest_v2");
  EXPECT_EQ(record->abi_version, HALO_MAKE_VERSION(2, 0));
}

}  // namespace
}  // namespace halo_test
