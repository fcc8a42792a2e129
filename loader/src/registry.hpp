// The registry: one immutable snapshot of a plugin scan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "halo/registry.h"
#include "plugin_module.hpp"
#include "validation/switch.hpp"

struct halo_registry_t {
  struct Record {
    halo_plugin_state_t state = HALO_PLUGIN_STATE_SKIPPED;
    std::string name;
    std::string manifest_path;
    std::string library_path;
    std::string source;
    uint32_t abi_version = 0;
    int32_t priority = 0;
    halo_status_code_t skip_code = HALO_STATUS_OK;
    std::string skip_reason;
  };
  struct Driver {
    halo_driver_t* driver = nullptr;  // One reference owned by the registry.
    std::string name;
    int32_t priority = 0;
  };
  struct Device {
    halo_device_info_t info = {};
    size_t driver_index = 0;
  };

  std::vector<Record> records;
  std::vector<Driver> drivers;
  std::vector<Device> devices;
  // Keeps every loaded module mapped until the registry goes, even when its
  // driver dies earlier.
  std::vector<std::shared_ptr<halo::loader::PluginModule>> modules;
  // NULL unless the registry validates (HALO_VALIDATION or its flags).
  std::shared_ptr<const halo::loader::validation::RegistryValidation>
      validation;

  ~halo_registry_t();
};

namespace halo::loader {

// Scans and loads per |options| into |registry|.
void scan_plugins(const halo_registry_options_t& options,
                  halo_registry_t* registry);

}  // namespace halo::loader
