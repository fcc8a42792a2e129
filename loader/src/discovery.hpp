// Where plugins come from (DESIGN.md §6, "Discovery order").
#pragma once

#include <string>
#include <vector>

#include "halo/registry.h"

namespace halo::loader {

// One path to consider: a manifest (.json) or a plugin library.
struct Candidate {
  std::string path;
  // "api", "HALO_PLUGIN_FILES", "HALO_ADD_PLUGIN_FILES", "build-tree",
  // "prefix", "XDG_DATA_DIRS" or "etc".
  std::string source;
};

// Lists every candidate in discovery order: explicit paths; then
// HALO_PLUGIN_FILES (which replaces everything below) or
// HALO_ADD_PLUGIN_FILES plus the manifest folders. Folders expand to their
// *.json files in name order, never directory order.
std::vector<Candidate> discover_candidates(const halo_registry_options_t& options);

}  // namespace halo::loader
