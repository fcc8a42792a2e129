// Only regular files are opened as manifests or plugin libraries: anything
// else in a manifest folder, or named as a library, is skipped with its type
// as the reason. Before, a FIFO named *.json blocked every scan for ever (its
// open waited for a writer) and a folder named *.json came back as an
// exception's text.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

namespace fs = std::filesystem;

class PluginFilesTest : public LoaderTest {
 protected:
  // Makes a FIFO at |path|.
  static void make_fifo(const fs::path& path) {
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
  }

  // Writes a manifest for plugin |name| with |library| into the folder.
  void write_manifest(const std::string& file, const std::string& name,
                      const std::string& library) const {
    std::ofstream out(fs::path(folder_.path()) / file);
    out << R"({"file_format_version": "1.0.0", "plugin": {"name": ")" << name
        << R"(", "library_path": ")" << library << R"(", "abi_version": "1.0"}})";
  }

  // Scans the folder beside test_good and returns the folder's one record,
  // after checking that test_good still loaded.
  halo::PluginRecord scan_folder_record() const {
    const halo::Registry registry = scan({good_manifest("test_good"), folder_.path()});
    const std::vector<halo::PluginRecord> records = registry.plugins();
    EXPECT_TRUE(registry.find_driver("test_good")) << describe(records);
    EXPECT_EQ(records.size(), 2u) << describe(records);
    return records.back();
  }

  TemporaryFolder folder_;
};

void expect_skipped(const halo::PluginRecord& record,
                    const std::vector<std::string>& parts) {
  EXPECT_FALSE(record.loaded());
  EXPECT_EQ(halo::code_name(record.skip_code),
            halo::code_name(HALO_STATUS_INVALID_ARGUMENT))
      << record.skip_reason;
  for (const std::string& part : parts) {
    EXPECT_NE(record.skip_reason.find(part), std::string::npos)
        << "reason '" << record.skip_reason << "' lacks '" << part << "'";
  }
}

TEST_F(PluginFilesTest, FifoNamedLikeAManifestIsSkipped) {
  make_fifo(fs::path(folder_.path()) / "fifo.json");
  const halo::PluginRecord record = scan_folder_record();
  expect_skipped(record, {"fifo.json", "FIFO", "not a regular file"});
}

TEST_F(PluginFilesTest, FolderNamedLikeAManifestIsSkipped) {
  fs::create_directory(fs::path(folder_.path()) / "x.json");
  const halo::PluginRecord record = scan_folder_record();
  expect_skipped(record, {"x.json", "directory", "not a regular file"});
}

TEST_F(PluginFilesTest, FifoNamedByAManifestAsItsLibraryIsSkipped) {
  make_fifo(fs::path(folder_.path()) / "libhalo_plugin_test_fifo.so");
  write_manifest("test_fifo.json", "test_fifo", "libhalo_plugin_test_fifo.so");
  const halo::PluginRecord record = scan_folder_record();
  EXPECT_EQ(record.name, "test_fifo");
  expect_skipped(record, {"libhalo_plugin_test_fifo.so", "FIFO", "not a regular file"});
}

TEST_F(PluginFilesTest, FifoNamedAsALibraryIsSkipped) {
  const fs::path fifo = fs::path(folder_.path()) / "libhalo_plugin_test_fifo.so";
  make_fifo(fifo);
  const std::vector<halo::PluginRecord> records = scan({fifo.string()}).plugins();
  ASSERT_EQ(records.size(), 1u);
  expect_skipped(records[0], {"FIFO", "not a regular file"});
}

// A symbolic link is followed: what counts is the file it leads to.
TEST_F(PluginFilesTest, LinkToAManifestIsFollowed) {
  write_manifest("test_good.json", "test_good", good_library("test_good"));
  fs::create_directory(fs::path(folder_.path()) / "links");
  fs::create_symlink(fs::path(folder_.path()) / "test_good.json",
                     fs::path(folder_.path()) / "links" / "test_good.json");
  const std::vector<halo::PluginRecord> records =
      scan({folder_.path() + "/links"}).plugins();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_TRUE(records[0].loaded()) << describe(records);
}

}  // namespace
}  // namespace halo_test
