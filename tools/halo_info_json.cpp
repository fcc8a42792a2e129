// halo-info's JSON output: the same report as the text, as one document with
// keys in a fixed order so that outputs can be compared with diff.
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "halo_info_report.hpp"

namespace halo::info {
namespace {

using Json = nlohmann::ordered_json;

Json plugin_json(const PluginRecord& plugin) {
  Json json;
  json["name"] = plugin.name;
  json["state"] = plugin.loaded() ? "loaded" : "skipped";
  json["source"] = plugin.source;
  json["manifest_path"] = plugin.manifest_path;
  json["library_path"] = plugin.library_path;
  json["abi_version"] = plugin.abi_version == 0
                            ? Json(nullptr)
                            : Json(version_string(plugin.abi_version));
  json["priority"] = plugin.priority;
  json["skip_code"] = std::string(code_name(plugin.skip_code));
  json["skip_reason"] = plugin.skip_reason;
  return json;
}

Json capabilities_json(const halo_device_capabilities_t& caps) {
  Json json;
  json["queue_count"] = caps.queue_count;
  json["features"] = feature_names(caps.features);
  json["memory_types"] = memory_type_names(caps.memory_types);
  json["executable_formats"] = split_formats(to_string(caps.executable_formats));
  json["max_semaphore_value_difference"] = caps.max_semaphore_value_difference;
  json["max_buffer_size"] = caps.max_buffer_size;
  json["min_buffer_alignment"] = caps.min_buffer_alignment;
  return json;
}

Json device_json(const DeviceReport& device) {
  const halo_device_info_t& info = device.info;
  Json json;
  json["index"] = device.index;
  json["name"] = to_string(info.name);
  json["type"] = device_type_name(info.type);
  json["device_id"] = info.device_id;
  json["vendor"] = to_string(info.vendor);
  json["driver_version"] = to_string(info.driver_version);
  json["vendor_id"] = info.vendor_id;
  json["native_device_id"] = info.native_device_id;
  json["uuid"] = uuid_string(info.uuid);
  json["capabilities"] =
      device.capabilities ? capabilities_json(*device.capabilities) : Json(nullptr);
  json["error"] = device.error.empty() ? Json(nullptr) : Json(device.error);
  return json;
}

Json driver_json(const DriverReport& driver) {
  Json json;
  json["index"] = driver.index;
  if (driver.info) {
    json["name"] = to_string(driver.info->name);
    json["version"] = to_string(driver.info->version);
    json["description"] = to_string(driver.info->description);
  }
  json["error"] = driver.error.empty() ? Json(nullptr) : Json(driver.error);
  json["devices"] = Json::array();
  for (const DeviceReport& device : driver.devices) {
    json["devices"].push_back(device_json(device));
  }
  return json;
}

}  // namespace

void print_json(std::ostream& out, const Report& report) {
  Json json;
  json["abi_version"] = version_string(HALO_ABI_VERSION);
  json["plugins"] = Json::array();
  for (const PluginRecord& plugin : report.plugins) {
    json["plugins"].push_back(plugin_json(plugin));
  }
  json["drivers"] = Json::array();
  for (const DriverReport& driver : report.drivers) {
    json["drivers"].push_back(driver_json(driver));
  }
  // Replace invalid UTF-8 (a plugin's name field is only bytes) instead of
  // throwing halfway through the document.
  out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace halo::info
