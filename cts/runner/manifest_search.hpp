// Which manifest halo-cts certifies with a plugin: a vendor installs a
// library and its manifest together, and the loader reads the manifest
// first, so the pair is what gets certified (the manifest.* cases), not the
// library alone.
#pragma once

#include <string>

#include "halo/registry.h"

namespace halo::cts {

struct ManifestChoice {
  std::string path;  // "" when none was found: a bare library.
  // For a bare library: "certifying a bare library, no manifest (…)", saying
  // where halo-cts looked.
  std::string missing_reason;
};

// Chooses the manifest of the plugin that |spec| (--plugin as given) named
// and that the loader recorded as |record|: |explicit_path| (--manifest)
// when given; else the manifest the loader read; else, for a library, the
// first that exists of <name>.json and <library file name>.json beside it,
// then the same names in ../../share/halo/plugins.d from it (the layout
// halo_add_plugin installs), where <name> is the descriptor's name and the
// library's name without "libhalo_plugin_".
ManifestChoice choose_manifest(const std::string& spec,
                               const std::string& explicit_path,
                               const halo_plugin_record_t& record);

}  // namespace halo::cts
