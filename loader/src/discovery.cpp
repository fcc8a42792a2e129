#include "discovery.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "log.hpp"

namespace halo::loader {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// Adds |path|: a folder adds its manifests sorted by name; a file adds itself.
// A path named explicitly is added even when missing, so its record says
// why; an |optional| one (the default folders) that does not exist adds
// nothing.
void add_path(const std::string& path, const std::string& source,
              std::vector<Candidate>* out, bool optional = false) {
  std::error_code error;
  if (optional && !fs::exists(path, error)) return;
  if (fs::is_directory(path, error)) {
    std::vector<std::string> manifests;
    for (const auto& entry : fs::directory_iterator(path, error)) {
      if (entry.path().extension() == ".json") {
        manifests.push_back(entry.path().string());
      }
    }
    std::sort(manifests.begin(), manifests.end());
    for (auto& manifest : manifests) out->push_back({manifest, source});
    return;
  }
  out->push_back({path, source});
}

// The folders beside libhalo: its install prefix's manifest folder and, when
// libhalo runs from a build tree, the build's (marked by a BUILD_TREE file).
std::vector<std::string> libhalo_relative_folders() {
  Dl_info info = {};
  if (dladdr(reinterpret_cast<void*>(&discover_candidates), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  std::error_code error;
  fs::path library = fs::canonical(info.dli_fname, error);
  if (error) return {};
  std::vector<std::string> folders;
  for (const char* relative :
       {HALO_BUILD_LIBDIR_TO_MANIFEST_DIR, HALO_LIBDIR_TO_MANIFEST_DIR}) {
    std::string folder =
        (library.parent_path() / relative).lexically_normal().string();
    if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
      folders.push_back(folder);
    }
  }
  return folders;
}

void add_default_folders(std::vector<Candidate>* out) {
  for (const auto& folder : libhalo_relative_folders()) {
    std::error_code error;
    const bool build_tree = fs::exists(fs::path(folder) / "BUILD_TREE", error);
    add_path(folder, build_tree ? "build-tree" : "prefix", out,
             /*optional=*/true);
  }
  const char* xdg = secure_getenv("XDG_DATA_DIRS");
  for (const auto& folder :
       split(xdg != nullptr && xdg[0] != '\0' ? xdg
                                              : "/usr/local/share:/usr/share",
             ':')) {
    add_path(folder + "/halo/plugins.d", "XDG_DATA_DIRS", out,
             /*optional=*/true);
  }
  add_path("/etc/halo/plugins.d", "etc", out, /*optional=*/true);
}

// The same file reached twice (an install prefix that is also on
// XDG_DATA_DIRS) is one candidate; different files naming one library are
// still reported as duplicates by the scan.
void drop_repeated_paths(std::vector<Candidate>* candidates) {
  std::vector<std::string> seen;
  std::vector<Candidate> unique;
  for (auto& candidate : *candidates) {
    std::error_code error;
    std::string key = fs::weakly_canonical(candidate.path, error).string();
    if (error) key = candidate.path;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    unique.push_back(std::move(candidate));
  }
  *candidates = std::move(unique);
}

}  // namespace

std::vector<Candidate> discover_candidates(
    const halo_registry_options_t& options) {
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < options.plugin_path_count; ++i) {
    add_path(options.plugin_paths[i], "api", &candidates);
  }
  const bool use_environment =
      (options.flags & HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT) == 0;
  const bool use_folders =
      (options.flags & HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS) == 0;
  if (use_environment) {
    const char* replace = secure_getenv("HALO_PLUGIN_FILES");
    if (replace != nullptr && replace[0] != '\0') {
      for (const auto& path : split(replace, ':')) {
        add_path(path, "HALO_PLUGIN_FILES", &candidates);
      }
      drop_repeated_paths(&candidates);
      return candidates;
    }
    const char* add = secure_getenv("HALO_ADD_PLUGIN_FILES");
    if (add != nullptr) {
      for (const auto& path : split(add, ':')) {
        add_path(path, "HALO_ADD_PLUGIN_FILES", &candidates);
      }
    }
  }
  if (use_folders) add_default_folders(&candidates);
  drop_repeated_paths(&candidates);
  for (const auto& candidate : candidates) {
    log_message(HALO_LOG_LEVEL_DEBUG, "candidate %s (from %s)",
                candidate.path.c_str(), candidate.source.c_str());
  }
  return candidates;
}

}  // namespace halo::loader
