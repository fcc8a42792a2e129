// Opens the vulkan plugin and its devices through the public API only.
#include "halo_vulkan.hpp"

#include <cstdio>
#include <cstdlib>

namespace halo::bench {
namespace {

halo_registry_t* g_registry = nullptr;
halo_driver_t* g_driver = nullptr;
halo_device_info_t g_info = {};

// Returns "CODE: message" for |status| and frees it.
std::string describe(halo_status_t status) {
  std::string text = halo_status_code_name(halo_status_code(status));
  text += ": ";
  text += halo_status_message(status);
  halo_status_free(status);
  return text;
}

// Appends why each skipped plugin was skipped to |error|: the usual reason
// for a missing driver is a plugin that loaded no Vulkan.
void append_skip_reasons(std::string* error) {
  size_t count = 0;
  halo_status_t status = halo_registry_plugin_count(g_registry, &count);
  if (status != HALO_OK) {
    *error += "; halo_registry_plugin_count: " + describe(status);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    status = halo_registry_plugin_record(g_registry, i, &record);
    if (status != HALO_OK) {
      halo_status_free(status);
      continue;
    }
    if (record.state == HALO_PLUGIN_STATE_SKIPPED) {
      *error += std::string("; plugin '") + record.name +
                "' skipped: " + record.skip_reason;
    }
  }
}

// The driver's own line for humans: the vulkan plugin says there why it
// offers no device (no loader, no physical device, each one skipped).
std::string driver_description() {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  halo_status_t status = halo_driver_query_info(g_driver, &info);
  if (status != HALO_OK) return "halo_driver_query_info: " + describe(status);
  return info.description;
}

bool open_registry(const std::string& manifest, std::string* error) {
  const char* const paths[] = {manifest.c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_status_t status = halo_registry_create(&options, &g_registry);
  if (status != HALO_OK) {
    *error = "halo_registry_create: " + describe(status);
    return false;
  }
  status = halo_registry_find_driver(g_registry, "vulkan", &g_driver);
  if (status != HALO_OK) {
    *error = "no vulkan driver from " + manifest + " (" + describe(status) +
             ")";
    append_skip_reasons(error);
    return false;
  }
  return true;
}

}  // namespace

bool open_halo_driver(const Settings& settings, std::string* error) {
  if (!open_registry(settings.manifest, error)) return false;
  size_t count = 0;
  halo_status_t status = halo_driver_device_count(g_driver, &count);
  if (status != HALO_OK) {
    *error = "halo_driver_device_count: " + describe(status);
    return false;
  }
  if (settings.device_index >= count) {
    *error = "HALO_BENCH_DEVICE=" + std::to_string(settings.device_index) +
             " but the vulkan driver has " + std::to_string(count) +
             " device(s) (" + driver_description() + ")";
    return false;
  }
  g_info.struct_size = sizeof(g_info);
  status = halo_driver_query_device_info(g_driver, settings.device_index,
                                         &g_info);
  if (status != HALO_OK) {
    *error = "halo_driver_query_device_info: " + describe(status);
    return false;
  }
  halo_device_t* device = nullptr;
  status = halo_driver_create_device(g_driver, g_info.device_id, nullptr,
                                     &device);
  if (status != HALO_OK) {
    *error = "halo_driver_create_device: " + describe(status);
    return false;
  }
  halo_device_release(device);
  return true;
}

void close_halo_driver() {
  halo_driver_release(g_driver);
  g_driver = nullptr;
  halo_registry_release(g_registry);
  g_registry = nullptr;
}

const halo_device_info_t& halo_device_info() { return g_info; }

HaloDeviceScope::HaloDeviceScope() {
  check_halo(halo_driver_create_device(g_driver, g_info.device_id, nullptr,
                                       &device_),
             "halo_driver_create_device");
}

HaloDeviceScope::~HaloDeviceScope() { halo_device_release(device_); }

void die_halo(const char* what, halo_status_t status) {
  std::fprintf(stderr, "halo-bench-vulkan: %s: %s: %s\n", what,
               halo_status_code_name(halo_status_code(status)),
               halo_status_message(status));
  std::fflush(stderr);
  std::abort();
}

}  // namespace halo::bench
