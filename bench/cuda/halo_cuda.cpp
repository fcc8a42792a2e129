// Opening the cuda plugin through the public API (see halo_cuda.hpp).
#include "halo_cuda.hpp"

#include <cstring>

#include "checks.hpp"

namespace halo::bench {
namespace {

// The features every benchmark of this binary uses.
constexpr halo_device_features_t kNeededFeatures =
    HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
    HALO_DEVICE_FEATURE_BUFFERS | HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
    HALO_DEVICE_FEATURE_DISPATCH;

// True when the comma-separated |formats| list names |format|.
bool lists_format(const char* formats, const char* format) {
  const size_t length = std::strlen(format);
  for (const char* at = std::strstr(formats, format); at != nullptr;
       at = std::strstr(at + 1, format)) {
    const bool starts = at == formats || at[-1] == ',' || at[-1] == ' ';
    const bool ends = at[length] == '\0' || at[length] == ',';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

HaloCuda::~HaloCuda() {
  halo_device_release(device_);
  halo_driver_release(driver_);
  halo_registry_release(registry_);
}

bool HaloCuda::open(const Settings& settings, std::string* error) {
  const char* const paths[] = {settings.manifest.c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_status_t status = halo_registry_create(&options, &registry_);
  if (status != HALO_OK) {
    *error = describe("halo_registry_create", status);
    return false;
  }
  return find_driver(settings, error) && create_device(settings, error);
}

bool HaloCuda::find_driver(const Settings& settings, std::string* error) {
  halo_status_t status = halo_registry_find_driver(registry_, "cuda", &driver_);
  if (status != HALO_OK) {
    *error = describe("halo_registry_find_driver(\"cuda\")", status) +
             " (manifest " + settings.manifest +
             "; set HALO_BENCH_CUDA_MANIFEST)";
    append_skip_reasons(error);
    return false;
  }
  size_t count = 0;
  status = halo_driver_device_count(driver_, &count);
  if (status != HALO_OK) {
    *error = describe("halo_driver_device_count", status);
    return false;
  }
  if (settings.device_index >= count) {
    // The driver's description says why it has no devices, when it has
    // none (no libcuda.so.1, cuInit's error, ...).
    halo_driver_info_t info = {};
    info.struct_size = sizeof(info);
    halo_status_free(halo_driver_query_info(driver_, &info));
    *error = "HALO_BENCH_DEVICE=" + std::to_string(settings.device_index) +
             " but the cuda driver has " + std::to_string(count) +
             " device(s): " + info.description;
    return false;
  }
  return true;
}

bool HaloCuda::create_device(const Settings& settings, std::string* error) {
  info_.struct_size = sizeof(info_);
  halo_status_t status =
      halo_driver_query_device_info(driver_, settings.device_index, &info_);
  if (status != HALO_OK) {
    *error = describe("halo_driver_query_device_info", status);
    return false;
  }
  status = halo_driver_create_device(driver_, info_.device_id, nullptr,
                                     &device_);
  if (status != HALO_OK) {
    *error = describe("halo_driver_create_device", status);
    return false;
  }
  halo_device_capabilities_t capabilities = {};
  capabilities.struct_size = sizeof(capabilities);
  status = halo_device_query_capabilities(device_, &capabilities);
  if (status != HALO_OK) {
    *error = describe("halo_device_query_capabilities", status);
    return false;
  }
  if ((capabilities.features & kNeededFeatures) != kNeededFeatures ||
      !lists_format(capabilities.executable_formats, "ptx")) {
    *error = std::string("device '") + info_.name +
             "' lacks semaphores, queues, buffers, command buffers or "
             "dispatch of ptx executables (formats: '" +
             capabilities.executable_formats + "')";
    return false;
  }
  return true;
}

void HaloCuda::append_skip_reasons(std::string* error) const {
  size_t count = 0;
  halo_status_t status = halo_registry_plugin_count(registry_, &count);
  if (status != HALO_OK) {
    *error += "; " + describe("halo_registry_plugin_count", status);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    status = halo_registry_plugin_record(registry_, i, &record);
    if (status != HALO_OK) {
      halo_status_free(status);
      continue;
    }
    if (record.state == HALO_PLUGIN_STATE_SKIPPED) {
      *error += "; plugin '";
      *error += record.name;
      *error += "' skipped: ";
      *error += record.skip_reason;
    }
  }
}

}  // namespace halo::bench
