// The registry's public C API.
#include <cstddef>
#include <cstring>
#include <memory>

#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "device_creation.hpp"
#include "log.hpp"
#include "object_refs.hpp"
#include "registry.hpp"
#include "validation/object_checks.hpp"
#include "validation/submission_tracker.hpp"

using halo::loader::copy_out;
using halo::loader::null_argument;

halo_registry_t::~halo_registry_t() {
  // Submissions that completed drop the references validation holds first,
  // so that only what the application still holds counts as leaked.
  if (validation != nullptr) halo::loader::validation::prune_submissions();
  for (auto& entry : drivers) {
    // The registry's reference counts as the application's: it was counted
    // when validation tracked the driver.
    halo::loader::release_checked(
        reinterpret_cast<halo_object_t*>(entry.driver), "halo_registry_release");
  }
  if (validation != nullptr) {
    halo::loader::validation::report_leaks(*validation);
  }
}

namespace {

halo_status_t check_registry(halo_registry_t* registry, const char* function) {
  return registry == nullptr ? null_argument(function, "registry") : nullptr;
}

halo_status_t check_index(size_t index, size_t count, const char* function,
                          const char* what) {
  if (index < count) return nullptr;
  return halo_status_format(HALO_STATUS_OUT_OF_RANGE,
                            "%s: index %zu is past the %zu %s", function, index,
                            count, what);
}

// Checks the application's allocator (NULL: libhalo's own), which every
// plugin of the registry will call unchecked.
halo_status_t check_allocator(const halo_allocator_t* allocator,
                              const char* function) {
  if (allocator == nullptr) return nullptr;
  const uint32_t minimum = halo::loader::abi_1_0_size<halo_allocator_t>;
  if (allocator->struct_size < minimum) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: options->allocator->struct_size %u is below ABI 1.0's %u",
        function, allocator->struct_size, minimum);
  }
  if (allocator->allocate == nullptr) {
    return null_argument(function, "options->allocator->allocate");
  }
  if (allocator->free == nullptr) {
    return null_argument(function, "options->allocator->free");
  }
  return nullptr;
}

// Copies and checks the members of |options| its struct_size covers into
// |effective| (zeroed, of this header's size); the others keep their
// defaults, so options of ABI 1.0 or 1.1 work unchanged.
halo_status_t read_options(const halo_registry_options_t& options,
                           const char* function,
                           halo_registry_options_t* effective) {
  if (options.struct_size < sizeof(uint32_t) * 2) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: options->struct_size %u is too small",
                              function, options.struct_size);
  }
  std::memcpy(effective, &options,
              options.struct_size < sizeof(*effective) ? options.struct_size
                                                       : sizeof(*effective));
  effective->struct_size = sizeof(*effective);
  // A struct_size that ends inside the pointer gives no allocator (the
  // copy above may have taken part of its bytes).
  constexpr size_t kAllocatorEnd = offsetof(halo_registry_options_t, allocator) +
                                   sizeof(effective->allocator);
  if (options.struct_size < kAllocatorEnd) effective->allocator = nullptr;
  HALO_RETURN_IF_ERROR(halo::loader::check_known_flags(
      effective->flags, HALO_REGISTRY_FLAGS_KNOWN, function, "options->flags"));
  if (effective->plugin_path_count > 0 && effective->plugin_paths == nullptr) {
    return null_argument(function, "options->plugin_paths");
  }
  for (size_t i = 0; i < effective->plugin_path_count; ++i) {
    if (effective->plugin_paths[i] == nullptr) {
      return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: options->plugin_paths[%zu] is NULL",
                                function, i);
    }
  }
  return check_allocator(effective->allocator, function);
}

}  // namespace

extern "C" {

halo_status_t halo_registry_create(const halo_registry_options_t* options,
                                   halo_registry_t** out_registry) try {
  static const char kFunction[] = "halo_registry_create";
  if (out_registry == nullptr) return null_argument(kFunction, "out_registry");
  *out_registry = nullptr;
  halo_registry_options_t effective = {};
  effective.struct_size = sizeof(effective);
  if (options != nullptr) {
    HALO_RETURN_IF_ERROR(read_options(*options, kFunction, &effective));
  }
  halo::loader::refresh_log_level();
  // Owned until the scan is complete: a throw releases every driver it
  // loaded so far.
  auto registry = std::make_unique<halo_registry_t>();
  registry->validation =
      halo::loader::validation::configure_registry(effective.flags);
  halo::loader::scan_plugins(effective, registry.get());
  *out_registry = registry.release();
  return nullptr;
}
HALO_API_CATCH_ALL

void halo_registry_release(halo_registry_t* registry) { delete registry; }

halo_status_t halo_registry_plugin_count(halo_registry_t* registry,
                                         size_t* out_count) try {
  static const char kFunction[] = "halo_registry_plugin_count";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_count == nullptr) return null_argument(kFunction, "out_count");
  *out_count = registry->records.size();
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_plugin_record(
    halo_registry_t* registry, size_t index,
    halo_plugin_record_t* out_record) try {
  static const char kFunction[] = "halo_registry_plugin_record";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_record == nullptr) return null_argument(kFunction, "out_record");
  HALO_RETURN_IF_ERROR(
      check_index(index, registry->records.size(), kFunction, "plugins"));
  const auto& record = registry->records[index];
  halo_plugin_record_t view = {};
  view.struct_size = sizeof(view);
  view.state = record.state;
  view.name = record.name.c_str();
  view.manifest_path = record.manifest_path.c_str();
  view.library_path = record.library_path.c_str();
  view.source = record.source.c_str();
  view.abi_version = record.abi_version;
  view.priority = record.priority;
  view.skip_code = record.skip_code;
  view.skip_reason = record.skip_reason.c_str();
  return copy_out(view, out_record, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_driver_count(halo_registry_t* registry,
                                         size_t* out_count) try {
  static const char kFunction[] = "halo_registry_driver_count";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_count == nullptr) return null_argument(kFunction, "out_count");
  *out_count = registry->drivers.size();
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_driver(halo_registry_t* registry, size_t index,
                                   halo_driver_t** out_driver) try {
  static const char kFunction[] = "halo_registry_driver";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_driver == nullptr) return null_argument(kFunction, "out_driver");
  *out_driver = nullptr;
  HALO_RETURN_IF_ERROR(
      check_index(index, registry->drivers.size(), kFunction, "drivers"));
  *out_driver = registry->drivers[index].driver;
  halo_driver_retain(*out_driver);
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_find_driver(halo_registry_t* registry,
                                        const char* name,
                                        halo_driver_t** out_driver) try {
  static const char kFunction[] = "halo_registry_find_driver";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (name == nullptr) return null_argument(kFunction, "name");
  if (out_driver == nullptr) return null_argument(kFunction, "out_driver");
  *out_driver = nullptr;
  for (const auto& entry : registry->drivers) {
    if (entry.name == name) {
      *out_driver = entry.driver;
      halo_driver_retain(entry.driver);
      return nullptr;
    }
  }
  return halo_status_format(HALO_STATUS_NOT_FOUND,
                            "%s: no loaded plugin is named '%s'", kFunction,
                            name);
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_device_count(halo_registry_t* registry,
                                         size_t* out_count) try {
  static const char kFunction[] = "halo_registry_device_count";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_count == nullptr) return null_argument(kFunction, "out_count");
  *out_count = registry->devices.size();
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_device_info(halo_registry_t* registry,
                                        size_t index,
                                        halo_device_info_t* out_info,
                                        size_t* out_driver_index) try {
  static const char kFunction[] = "halo_registry_device_info";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_info == nullptr) return null_argument(kFunction, "out_info");
  HALO_RETURN_IF_ERROR(
      check_index(index, registry->devices.size(), kFunction, "devices"));
  const auto& device = registry->devices[index];
  if (out_driver_index != nullptr) *out_driver_index = device.driver_index;
  return copy_out(device.info, out_info, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_registry_create_device(halo_registry_t* registry,
                                          size_t index,
                                          const halo_device_params_t* params,
                                          halo_device_t** out_device) try {
  static const char kFunction[] = "halo_registry_create_device";
  HALO_RETURN_IF_ERROR(check_registry(registry, kFunction));
  if (out_device == nullptr) return null_argument(kFunction, "out_device");
  *out_device = nullptr;
  HALO_RETURN_IF_ERROR(
      check_index(index, registry->devices.size(), kFunction, "devices"));
  const auto& device = registry->devices[index];
  return halo::loader::create_device(
      registry->drivers[device.driver_index].driver, device.info.device_id,
      params, out_device, kFunction);
}
HALO_API_CATCH_ALL

}  // extern "C"
