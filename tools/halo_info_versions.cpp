// Which halo halo-info is, and which libhalo it runs with: the two differ
// when LD_LIBRARY_PATH or another prefix puts a different libhalo first.
#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <string>

#include "halo_info_report.hpp"

namespace halo::info {

std::string halo_version() { return HALO_INFO_HALO_VERSION; }

LibhaloReport locate_libhalo() {
  LibhaloReport report;
  // libhalo is already mapped (halo-info links it), so RTLD_NOLOAD only finds
  // it by its SONAME; nothing new is loaded.
  const std::string soname =
      "libhalo.so." + std::to_string(HALO_ABI_VERSION_MAJOR);
  void* handle = dlopen(soname.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) {
    return report;
  }
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
      map->l_name != nullptr) {
    std::error_code error;
    const std::filesystem::path path =
        std::filesystem::canonical(map->l_name, error);
    report.path = error ? std::string(map->l_name) : path.string();
  }
  dlclose(handle);
  // "…/libhalo.so.1.1.0" → "1.1": the file is versioned MAJOR.MINOR.0 by the
  // ABI it speaks (loader/CMakeLists.txt).
  const std::string name = std::filesystem::path(report.path).filename();
  const std::string prefix = "libhalo.so.";
  if (name.rfind(prefix, 0) == 0) {
    const std::string version = name.substr(prefix.size());
    const std::size_t first_dot = version.find('.');
    const std::size_t second_dot = version.find('.', first_dot + 1);
    if (first_dot != std::string::npos && first_dot > 0 &&
        second_dot != first_dot + 1) {
      report.abi = version.substr(0, second_dot);
    }
  }
  return report;
}

}  // namespace halo::info
