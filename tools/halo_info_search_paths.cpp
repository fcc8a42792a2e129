// Where libhalo looks for plugin manifests (DESIGN.md §6, "Discovery
// order"), listed the way the loader walks them, so that the doctor can say
// which folders were searched and what each held.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

namespace fs = std::filesystem;

void add(std::vector<SearchedPath>& out, const std::string& path,
         const std::string& source) {
  out.push_back(inspect_path(path, source, ".json"));
}

// The folders beside libhalo: the build tree's and the install prefix's, by
// the same relative paths libhalo uses (loader/CMakeLists.txt).
void add_libhalo_relative(std::vector<SearchedPath>& out,
                          const LibhaloReport& libhalo) {
  if (libhalo.path.empty()) {
    return;
  }
  const fs::path folder = fs::path(libhalo.path).parent_path();
  std::vector<std::string> seen;
  for (const char* relative : {HALO_INFO_BUILD_LIBDIR_TO_MANIFEST_DIR,
                               HALO_INFO_LIBDIR_TO_MANIFEST_DIR}) {
    const std::string path = (folder / relative).lexically_normal().string();
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) {
      continue;
    }
    seen.push_back(path);
    std::error_code error;
    const bool build_tree = fs::exists(fs::path(path) / "BUILD_TREE", error);
    add(out, path, build_tree ? "build-tree" : "prefix");
  }
}

}  // namespace

std::string environment_value(const char* name) {
  const char* value = secure_getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) {
      parts.push_back(part);
    }
  }
  return parts;
}

SearchedPath inspect_path(const std::string& path, const std::string& source,
                          const std::string& extension) {
  SearchedPath searched{path, source, "missing", 0};
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status)) {
    searched.state = "folder";
    for (const auto& entry : fs::directory_iterator(path, error)) {
      if (entry.path().extension() == extension) {
        ++searched.files;
      }
    }
  } else if (fs::is_regular_file(status)) {
    searched.state = "file";
    searched.files = 1;
  } else if (fs::exists(status)) {
    searched.state = "other";
  }
  return searched;
}

std::vector<std::pair<std::string, std::string>> relevant_environment() {
  static constexpr const char* kNames[] = {
      "HALO_PLUGIN_FILES", "HALO_ADD_PLUGIN_FILES", "HALO_PLUGINS_SELECT",
      "HALO_PLUGINS_DISABLE", "HALO_VULKAN_LIBRARY", "HALO_OPENCL_LIBRARY",
      "XDG_DATA_DIRS", "VK_DRIVER_FILES", "VK_ICD_FILENAMES",
      "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT",
      "VK_LOADER_DRIVERS_DISABLE", "OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH",
      "OCL_ICD_FILENAMES", "LD_LIBRARY_PATH"};
  std::vector<std::pair<std::string, std::string>> variables;
  for (const char* name : kNames) {
    if (secure_getenv(name) != nullptr) {
      variables.emplace_back(name, environment_value(name));
    }
  }
  return variables;
}

std::vector<SearchedPath> manifest_search_paths(const ScanSettings& settings,
                                                const LibhaloReport& libhalo) {
  std::vector<SearchedPath> paths;
  for (const std::string& path : settings.plugin_paths) {
    add(paths, path, "api");
  }
  if (!settings.ignore_environment) {
    const std::string replace = environment_value("HALO_PLUGIN_FILES");
    if (!replace.empty()) {
      // Replaces every other source, the default folders included.
      for (const std::string& path : split_list(replace, ':')) {
        add(paths, path, "HALO_PLUGIN_FILES");
      }
      return paths;
    }
    for (const std::string& path :
         split_list(environment_value("HALO_ADD_PLUGIN_FILES"), ':')) {
      add(paths, path, "HALO_ADD_PLUGIN_FILES");
    }
  }
  if (settings.no_default_folders) {
    return paths;
  }
  add_libhalo_relative(paths, libhalo);
  std::string xdg = environment_value("XDG_DATA_DIRS");
  if (xdg.empty()) {
    xdg = "/usr/local/share:/usr/share";
  }
  for (const std::string& folder : split_list(xdg, ':')) {
    add(paths, folder + "/halo/plugins.d", "XDG_DATA_DIRS");
  }
  add(paths, "/etc/halo/plugins.d", "etc");
  return paths;
}

}  // namespace halo::info
