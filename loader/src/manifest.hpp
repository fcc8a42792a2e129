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

// Parses the manifest at |path| into |out_manifest|. Returns NOT_FOUND for a
// missing file, and INVALID_ARGUMENT naming the file (and the field) for
// anything but a regular file, unreadable files, bad JSON, missing or
// ill-typed fields, and numbers outside their fields' ranges. Throws
// std::bad_alloc.
halo_status_t read_manifest(const std::string& path, Manifest* out_manifest);

enum class VersionParse { kOk, kMalformed, kOutOfRange };

// Parses "M.m" into a HALO_MAKE_VERSION value. kOutOfRange when either half
// is above 65535, as it would not fit its 16 bits.
VersionParse parse_abi_version(const std::string& text, uint32_t* out_version);

}  // namespace halo::loader
