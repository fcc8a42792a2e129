// Shared helpers of the stress tests.
#include "stress_util.hpp"

#include <set>

namespace halo_stress {

std::string describe(halo_status_t status) {
  if (status == HALO_OK) return "OK";
  std::string text = std::string(halo_status_code_name(halo_status_code(status))) +
                     ": " + halo_status_message(status);
  halo_status_free(status);
  return text;
}

halo_status_t create_build_tree_registry(halo_registry_t** out_registry,
                                         const halo_allocator_t* allocator) {
  const char* paths[] = {HALO_TEST_MANIFEST_DIR};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  options.allocator = allocator;
  return halo_registry_create(&options, out_registry);
}

halo_status_t execute(halo_device_t* device, halo_semaphore_t* wait,
                      uint64_t wait_value,
                      std::vector<halo_semaphore_t*> signals,
                      std::vector<uint64_t> signal_values) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  info.wait_semaphores = &wait;
  info.wait_values = &wait_value;
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  return halo_device_queue_execute(device, &info);
}

std::vector<PluginDevice> first_device_of_each_plugin(halo_registry_t* registry) {
  std::vector<PluginDevice> result;
  size_t device_count = 0;
  if (describe(halo_registry_device_count(registry, &device_count)) != "OK") {
    return result;
  }
  std::set<size_t> seen_drivers;
  for (size_t i = 0; i < device_count; ++i) {
    halo_device_info_t info = {};
    info.struct_size = sizeof(info);
    size_t driver_index = 0;
    if (describe(halo_registry_device_info(registry, i, &info, &driver_index)) != "OK" ||
        !seen_drivers.insert(driver_index).second) {
      continue;
    }
    halo_driver_t* driver = nullptr;
    halo_driver_info_t driver_info = {};
    driver_info.struct_size = sizeof(driver_info);
    if (describe(halo_registry_driver(registry, driver_index, &driver)) == "OK" &&
        describe(halo_driver_query_info(driver, &driver_info)) == "OK") {
      result.push_back({driver_info.name, i});
    }
    halo_driver_release(driver);
  }
  return result;
}

}  // namespace halo_stress
