#include "loader_manifest.hpp"

#include <new>

#include "manifest.hpp"

namespace halo::cts {

halo_status_t read_plugin_manifest(const std::string& path,
                                   PluginManifest* out_manifest) {
  loader::Manifest manifest;
  halo_status_t status = nullptr;
  try {
    status = loader::read_manifest(path, &manifest);
  } catch (const std::bad_alloc&) {
    return halo_status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory reading the manifest");
  }
  if (status != nullptr) return status;
  out_manifest->name = manifest.name;
  out_manifest->library_path = manifest.library_path;
  out_manifest->abi_version = manifest.abi_version;
  return nullptr;
}

}  // namespace halo::cts
