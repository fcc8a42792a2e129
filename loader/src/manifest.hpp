// Plugin manifests: JSON read before dlopen, so filters cost nothing.
#pragma once

#include <cstdint>
#include <string>

#include "halo/status.h"

namespace halo::loader {

struct Manifest {
  std::string path;
  std::string name;
  // Resolved against the manifest's folder.
  std::string library_path;
  uint32_t abi_version = 0;
  int32_t priority = 0;
};

// Parses the manifest at |path| into |out_manifest|. Returns INVALID_ARGUMENT
// naming the file and the field for unreadable files, bad JSON, or missing or
// ill-typed fields.
halo_status_t read_manifest(const std::string& path, Manifest* out_manifest);

// Parses "M.m" into a HALO_MAKE_VERSION value; false when malformed.
bool parse_abi_version(const std::string& text, uint32_t* out_version);

}  // namespace halo::loader
