// Worker mode: one case, in its own process, so a crash or a hang costs only
// that case.
#pragma once

#include <string>

#include "halo/registry.h"
#include "options.hpp"
#include "verdict.hpp"

namespace halo::cts {

// Runs |options.worker_case| against |options.worker_plugin| and prints the
// verdict line. Returns the process exit code (0 unless the worker itself
// could not run).
int run_worker(const Options& options);

// True when |plugin| names a file rather than a loaded plugin's name.
bool is_plugin_path(const std::string& plugin);

// Opens a registry in which |plugin| (a name or path) is loaded, and returns
// the plugin's driver and resolved name. |peer_path|, unless "", is loaded
// too, right after |plugin|. |flags| (halo_registry_options_t::flags) may
// keep the loader from discovering any other plugin. On failure returns
// false with the reason in |out_error|.
bool open_plugin(const std::string& plugin, const std::string& peer_path,
                 halo_registry_flags_t flags, halo_registry_t** out_registry,
                 halo_driver_t** out_driver, std::string* out_name,
                 std::string* out_error);

}  // namespace halo::cts
