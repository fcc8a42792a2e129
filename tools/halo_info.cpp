// halo-info: shows what the halo loader finds on this machine.
//
// Every plugin considered is listed, loaded or skipped with the reason, then
// every driver with its devices and capabilities. Skipped plugins are normal
// (a machine without a GPU skips the GPU plugins), so the exit code is 0
// unless the registry itself cannot be created.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "halo/halo.hpp"
#include "halo_info_report.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Lists the halo plugins, drivers and devices this machine has."};
  bool json = false;
  bool ignore_environment = false;
  bool no_default_folders = false;
  std::vector<std::string> plugin_paths;
  app.add_flag("--json", json, "Print one JSON document instead of text");
  app.add_option("--plugin-path", plugin_paths,
                 "A manifest, plugin library or folder of manifests to search "
                 "first (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--ignore-environment", ignore_environment,
               "Ignore HALO_PLUGIN_FILES, HALO_ADD_PLUGIN_FILES and the filters");
  app.add_flag("--no-default-folders", no_default_folders,
               "Skip the build-tree, prefix, XDG and /etc manifest folders");
  CLI11_PARSE(app, argc, argv);

  halo_registry_flags_t flags = 0;
  if (ignore_environment) {
    flags |= HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  }
  if (no_default_folders) {
    flags |= HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
  }

  halo::Registry registry;
  try {
    registry = halo::Registry::create(plugin_paths, flags);
  } catch (const halo::Error& error) {
    std::fprintf(stderr, "halo-info: cannot create the registry: %s\n", error.what());
    return 1;
  }
  try {
    const halo::info::Report report = halo::info::collect(registry);
    if (json) {
      halo::info::print_json(std::cout, report);
    } else {
      halo::info::print_text(std::cout, report);
    }
  } catch (const std::exception& error) {
    // The registry exists, so its lists should always answer; say what broke
    // rather than die with an uncaught exception.
    std::fprintf(stderr, "halo-info: %s\n", error.what());
    return 2;
  }
  std::cout.flush();
  return std::cout ? 0 : 3;
}
