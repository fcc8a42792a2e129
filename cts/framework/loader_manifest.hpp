// A plugin manifest as libhalo reads it. The manifest.* cases judge the
// manifest a plugin ships with by the loader's own reader
// (loader/src/manifest.cpp, built into halo-cts), never by a second parser
// that could accept what the loader refuses, or the reverse.
#pragma once

#include <cstdint>
#include <string>

#include "halo/status.h"

namespace halo::cts {

struct PluginManifest {
  std::string name;
  // Resolved against the manifest's folder, as the loader resolves it.
  std::string library_path;
  uint32_t abi_version = 0;  // HALO_MAKE_VERSION(major, minor).
};

// Reads the manifest at |path| into |out_manifest| as the loader does before
// it opens the library. Returns NULL, or the loader's status saying why it
// would skip the manifest (NOT_FOUND for a missing file, INVALID_ARGUMENT
// naming the field for anything malformed). The caller owns the status.
halo_status_t read_plugin_manifest(const std::string& path,
                                   PluginManifest* out_manifest);

}  // namespace halo::cts
