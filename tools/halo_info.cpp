// halo-info: shows what the halo loader finds on this machine.
//
// Every plugin considered is listed, loaded or skipped with the reason, then
// every driver with its devices and capabilities, numbered as halo-cts
// --device numbers them. --doctor explains, for each plugin that shows no
// device, why and what to do. Skipped plugins are normal (a machine without a
// GPU skips the GPU plugins), so the exit code is 0 unless the registry
// itself cannot be created.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "halo/halo.hpp"
#include "halo_info_doctor.hpp"
#include "halo_info_json.hpp"
#include "halo_info_report.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Lists the halo plugins, drivers and devices this machine has."};
  bool json = false;
  bool doctor = false;
  halo::info::ScanSettings settings;
  app.add_flag("--json", json,
               "Print one JSON document (schema halo-info/1) instead of text");
  app.add_flag("--doctor", doctor,
               "Explain for each plugin why it shows no device, and what to do");
  app.add_option("--plugin-path", settings.plugin_paths,
                 "A manifest, plugin library or folder of manifests to search "
                 "first (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--ignore-environment", settings.ignore_environment,
               "Ignore HALO_PLUGIN_FILES, HALO_ADD_PLUGIN_FILES and the filters");
  app.add_flag("--no-default-folders", settings.no_default_folders,
               "Skip the build-tree, prefix, XDG and /etc manifest folders");
  CLI11_PARSE(app, argc, argv);

  halo_registry_flags_t flags = 0;
  if (settings.ignore_environment) {
    flags |= HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  }
  if (settings.no_default_folders) {
    flags |= HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
  }

  halo::Registry registry;
  try {
    registry = halo::Registry::create(settings.plugin_paths, flags);
  } catch (const halo::Error& error) {
    std::fprintf(stderr, "halo-info: cannot create the registry: %s\n", error.what());
    return 1;
  }
  try {
    const halo::info::Report report = halo::info::collect(registry);
    if (json) {
      halo::info::Json document = halo::info::report_json(report);
      if (doctor) {
        document["doctor"] =
            halo::info::doctor_json(halo::info::examine(report, settings));
      }
      halo::info::write_json(std::cout, document);
    } else if (doctor) {
      halo::info::print_doctor_text(std::cout, report,
                                    halo::info::examine(report, settings));
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
