// Shared helpers of the loader tests.
#include "loader_test_util.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace halo_test {
namespace {

// Everything libhalo (or a test plugin) reads from the environment that
// changes what a scan finds or prints. HALO_DISABLE_UNLOAD is left alone:
// sanitizer runs set it.
constexpr const char* kLoaderVariables[] = {
    "HALO_PLUGIN_FILES",    "HALO_ADD_PLUGIN_FILES", "HALO_PLUGINS_SELECT",
    "HALO_PLUGINS_DISABLE", "HALO_LOADER_DEBUG",     "XDG_DATA_DIRS",
    "HALO_TEST_PLUGIN_DEVICE_COUNT", "HALO_VALIDATION", "HALO_VALIDATION_GRACE_MS",
};

std::string file_name_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::string good_manifest(std::string_view name) {
  return kGoodDir + "/" + std::string(name) + ".json";
}

std::string good_library(std::string_view name) {
  return kGoodDir + "/libhalo_plugin_" + std::string(name) + ".so";
}

std::string misbehaving_manifest(std::string_view name) {
  return kMisbehavingDir + "/" + std::string(name) + ".json";
}

TemporaryFolder::TemporaryFolder() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "halo-loader-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

EnvironmentGuard::EnvironmentGuard() {
  for (const char* name : kLoaderVariables) {
    const char* value = std::getenv(name);
    saved_.emplace_back(name, value != nullptr ? std::optional<std::string>(value)
                                               : std::nullopt);
    unsetenv(name);
  }
}

EnvironmentGuard::~EnvironmentGuard() {
  for (const auto& [name, value] : saved_) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
}

void EnvironmentGuard::set(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);
}

halo::Registry scan(const std::vector<std::string>& paths,
                    halo_registry_flags_t flags) {
  return halo::Registry::create(paths, flags);
}

const halo::PluginRecord* find_by_manifest(const std::vector<halo::PluginRecord>& records,
                                           std::string_view file_name) {
  for (const halo::PluginRecord& record : records) {
    if (file_name_of(record.manifest_path) == file_name) {
      return &record;
    }
  }
  return nullptr;
}

std::vector<const halo::PluginRecord*> find_by_name(
    const std::vector<halo::PluginRecord>& records, std::string_view name) {
  std::vector<const halo::PluginRecord*> found;
  for (const halo::PluginRecord& record : records) {
    if (record.name == name) {
      found.push_back(&record);
    }
  }
  return found;
}

std::vector<std::string> names(const std::vector<halo::PluginRecord>& records) {
  std::vector<std::string> result;
  for (const halo::PluginRecord& record : records) {
    result.push_back(record.name);
  }
  return result;
}

std::vector<std::string> driver_names(const halo::Registry& registry) {
  std::vector<std::string> result;
  for (const halo::Driver& driver : registry.drivers()) {
    result.push_back(halo::to_string(driver.info().name));
  }
  return result;
}

std::vector<std::string> device_names(const halo::Registry& registry) {
  std::vector<std::string> result;
  for (const halo::DeviceEntry& entry : registry.devices()) {
    result.push_back(halo::to_string(entry.info.name));
  }
  return result;
}

std::string describe(const std::vector<halo::PluginRecord>& records) {
  std::string text;
  for (const halo::PluginRecord& record : records) {
    text += "  " + record.name + " [" + record.source + "] " +
            (record.loaded() ? "loaded" : "skipped") + " " +
            std::string(halo::code_name(record.skip_code)) + ": " +
            record.skip_reason + " (manifest '" + record.manifest_path +
            "', library '" + record.library_path + "')\n";
  }
  return text;
}

void expect_status(halo_status_t status, halo_status_code_t code,
                   std::string_view substring) {
  halo::StatusPtr owned(status);
  EXPECT_EQ(halo::code_name(halo_status_code(owned.get())), halo::code_name(code))
      << "message: " << halo_status_message(owned.get());
  if (!substring.empty()) {
    EXPECT_NE(std::string_view(halo_status_message(owned.get())).find(substring),
              std::string_view::npos)
        << "message '" << halo_status_message(owned.get())
        << "' lacks '" << substring << "'";
  }
}

}  // namespace halo_test
