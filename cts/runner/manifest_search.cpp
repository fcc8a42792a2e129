#include "manifest_search.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "worker.hpp"

namespace halo::cts {
namespace {

namespace fs = std::filesystem;

// The manifests a library at |library| may ship with, in the order they are
// tried: the vendor's build folder first (halo_add_plugin writes
// <name>.json beside the library), then an install prefix.
std::vector<fs::path> candidates(const fs::path& library, const std::string& name) {
  std::vector<std::string> stems = {name};
  std::string stem = library.stem().string();
  const std::string prefix = "libhalo_plugin_";
  if (stem.rfind(prefix, 0) == 0) stems.push_back(stem.substr(prefix.size()));
  stems.push_back(stem);
  std::vector<std::string> unique;
  for (const std::string& s : stems) {
    if (!s.empty() && std::find(unique.begin(), unique.end(), s) == unique.end()) {
      unique.push_back(s);
    }
  }
  const fs::path folder = library.parent_path();
  std::vector<fs::path> paths;
  for (const fs::path& dir : {folder, folder / ".." / ".." / "share" / "halo" / "plugins.d"}) {
    for (const std::string& s : unique) {
      paths.push_back((dir / (s + ".json")).lexically_normal());
    }
  }
  return paths;
}

}  // namespace

ManifestChoice choose_manifest(const std::string& spec,
                               const std::string& explicit_path,
                               const halo_plugin_record_t& record) {
  if (!explicit_path.empty()) return {explicit_path, ""};
  if (record.manifest_path != nullptr && record.manifest_path[0] != '\0') {
    return {record.manifest_path, ""};
  }
  // Beside the library as it was named, not as symbolic links resolve it:
  // that is where its vendor put the manifest.
  const fs::path library = is_plugin_path(spec) ? fs::path(spec)
                                                : fs::path(record.library_path);
  std::string looked;
  for (const fs::path& path : candidates(library, record.name)) {
    std::error_code error;
    if (fs::exists(path, error)) return {path.string(), ""};
    looked += (looked.empty() ? "" : ", ") + path.string();
  }
  return {"", "certifying a bare library, no manifest (none of " + looked +
                  " exists; name one with --manifest FILE)"};
}

}  // namespace halo::cts
