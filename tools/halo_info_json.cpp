// halo-info's report as JSON: the same report as the text, field by field as
// tools/README.md documents it.
#include <cstdint>
#include <string>

#include "halo_info_json.hpp"

namespace halo::info {
namespace {

Json or_null(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

Json abi_json(std::uint32_t version) {
  return version == 0 ? Json(nullptr) : Json(version_string(version));
}

Json plugin_json(const PluginRecord& plugin) {
  Json json;
  json["name"] = plugin.name;
  json["state"] = plugin.loaded() ? "loaded" : "skipped";
  json["source"] = plugin.source;
  json["manifest_path"] = plugin.manifest_path;
  json["library_path"] = plugin.library_path;
  json["abi_version"] = abi_json(plugin.abi_version);
  json["priority"] = plugin.priority;
  json["skip_code"] = std::string(code_name(plugin.skip_code));
  json["skip_reason"] = plugin.skip_reason;
  return json;
}

Json capabilities_json(const halo_device_capabilities_t& caps) {
  Json json;
  json["queue_count"] = caps.queue_count;
  json["features"] = feature_names(caps.features);
  json["executable_formats"] = split_formats(to_string(caps.executable_formats));
  return json;
}

// A member of ABI 1.2: null when the plugin does not report it (0: built
// for an older ABI, or the device lacks the feature); the type's largest
// value, which means no limit, stays a number.
Json reported(std::uint64_t value) {
  return value == 0 ? Json(nullptr) : Json(value);
}

Json reported(const std::uint32_t (&values)[3]) {
  if (values[0] == 0 && values[1] == 0 && values[2] == 0) return Json(nullptr);
  return Json::array({values[0], values[1], values[2]});
}

Json limits_json(const halo_device_capabilities_t& caps) {
  Json json;
  json["max_buffer_size"] = caps.max_buffer_size;
  json["min_buffer_alignment"] = caps.min_buffer_alignment;
  json["max_semaphore_value_difference"] = caps.max_semaphore_value_difference;
  json["max_workgroup_size"] = reported(caps.max_workgroup_size);
  json["max_workgroup_invocations"] = reported(caps.max_workgroup_invocations);
  json["max_workgroup_count"] = reported(caps.max_workgroup_count);
  json["max_workgroup_count_total"] = reported(caps.max_workgroup_count_total);
  json["max_binding_count"] = reported(caps.max_binding_count);
  json["max_constant_size"] = reported(caps.max_constant_size);
  return json;
}

Json memory_json(const halo_device_capabilities_t& caps) {
  Json json;
  json["types"] = memory_type_names(caps.memory_types);
  json["device_memory_size"] = reported(caps.device_memory_size);
  return json;
}

// ABI 1.3's external handle types, and 1.5's imports for device waits
// (empty lists from an older plugin).
Json sharing_json(const halo_device_capabilities_t& caps) {
  Json json;
  json["buffer_export"] = handle_type_names(caps.buffer_export_types);
  json["buffer_import"] = handle_type_names(caps.buffer_import_types);
  json["semaphore_export"] = handle_type_names(caps.semaphore_export_types);
  json["semaphore_import"] = handle_type_names(caps.semaphore_import_types);
  json["semaphore_wait_import"] = handle_type_names(caps.semaphore_wait_import_types);
  json["host_allocation_alignment"] = reported(caps.host_allocation_alignment);
  return json;
}

Json device_json(const DeviceReport& device) {
  const halo_device_info_t& info = device.info;
  const auto& caps = device.capabilities;
  Json json;
  json["index"] = device.index;
  json["registry_index"] =
      device.registry_index ? Json(*device.registry_index) : Json(nullptr);
  json["device_id"] = info.device_id;
  json["name"] = to_string(info.name);
  json["type"] = device_type_name(info.type);
  json["vendor"] = to_string(info.vendor);
  json["driver_version"] = to_string(info.driver_version);
  json["native_api"] = or_null(to_string(info.native_api));
  json["compute_units"] = reported(info.compute_units);
  json["vendor_id"] = info.vendor_id;
  json["native_device_id"] = info.native_device_id;
  json["uuid"] = uuid_string(info.uuid);
  json["capabilities"] = caps ? capabilities_json(*caps) : Json(nullptr);
  json["limits"] = caps ? limits_json(*caps) : Json(nullptr);
  json["memory"] = caps ? memory_json(*caps) : Json(nullptr);
  json["sharing"] = caps ? sharing_json(*caps) : Json(nullptr);
  json["error"] = or_null(device.error);
  return json;
}

Json driver_json(const DriverReport& driver) {
  Json json;
  json["index"] = driver.index;
  json["plugin"] = driver.plugin ? Json(driver.plugin->name) : Json(nullptr);
  json["name"] = driver.info ? Json(to_string(driver.info->name)) : Json(nullptr);
  json["version"] =
      driver.info ? Json(to_string(driver.info->version)) : Json(nullptr);
  json["description"] =
      driver.info ? Json(to_string(driver.info->description)) : Json(nullptr);
  json["library_path"] =
      driver.plugin ? Json(driver.plugin->library_path) : Json(nullptr);
  json["abi_version"] =
      driver.plugin ? abi_json(driver.plugin->abi_version) : Json(nullptr);
  json["error"] = or_null(driver.error);
  json["device_count"] = driver.devices.size();
  json["no_devices_reason"] = or_null(driver.no_devices_reason);
  json["devices"] = Json::array();
  for (const DeviceReport& device : driver.devices) {
    json["devices"].push_back(device_json(device));
  }
  return json;
}

}  // namespace

Json report_json(const Report& report) {
  Json json;
  json["schema"] = kJsonSchema;
  json["halo_version"] = halo_version();
  json["halo_abi"] = version_string(HALO_ABI_VERSION);
  json["libhalo"] = {{"path", or_null(report.libhalo.path)},
                     {"abi", or_null(report.libhalo.abi)}};
  json["plugins"] = Json::array();
  for (const PluginRecord& plugin : report.plugins) {
    json["plugins"].push_back(plugin_json(plugin));
  }
  json["drivers"] = Json::array();
  for (const DriverReport& driver : report.drivers) {
    json["drivers"].push_back(driver_json(driver));
  }
  return json;
}

void write_json(std::ostream& out, const Json& json) {
  out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace halo::info
