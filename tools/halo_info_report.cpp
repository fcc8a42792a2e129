// Collects halo-info's report: each driver with its devices numbered as the
// driver numbers them, which is how halo-cts --device counts.
#include "halo_info_report.hpp"

#include <utility>

namespace halo::info {
namespace {

// Creates the device to read its capabilities: the C API offers them only on
// a created device.
void query_capabilities(const Driver& driver, DeviceReport& device) {
  try {
    device.capabilities =
        driver.create_device(device.info.device_id).capabilities();
  } catch (const Error& error) {
    device.error = error.what();
  }
}

// The record of the plugin whose driver is |driver|. find_driver answers by
// plugin name, so comparing handles ties a driver to its record even when the
// driver's info names it differently.
std::optional<PluginRecord> plugin_of(const Registry& registry,
                                      const std::vector<PluginRecord>& plugins,
                                      const Driver& driver) {
  for (const PluginRecord& plugin : plugins) {
    if (plugin.loaded() && registry.find_driver(plugin.name) == driver) {
      return plugin;
    }
  }
  return std::nullopt;
}

// The registry's index of device |device_id| of driver |driver_index|.
std::optional<std::size_t> registry_index_of(
    const std::vector<DeviceEntry>& entries, std::size_t driver_index,
    halo_device_id_t device_id) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].driver_index == driver_index &&
        entries[i].info.device_id == device_id) {
      return i;
    }
  }
  return std::nullopt;
}

void collect_driver(const Registry& registry, const Report& report,
                    const std::vector<DeviceEntry>& entries,
                    DriverReport& out) {
  Driver driver;
  try {
    driver = registry.driver(out.index);
    out.plugin = plugin_of(registry, report.plugins, driver);
    out.info = driver.info();
  } catch (const Error& error) {
    out.error = error.what();
  }
  if (!driver) {
    return;
  }
  std::vector<halo_device_info_t> infos;
  try {
    // A fresh enumeration in the driver's order, as halo-cts makes it.
    infos = driver.devices();
  } catch (const Error& error) {
    out.error += (out.error.empty() ? "" : "; ") + std::string(error.what());
  }
  for (std::size_t i = 0; i < infos.size(); ++i) {
    DeviceReport device;
    device.index = i;
    device.info = infos[i];
    device.registry_index =
        registry_index_of(entries, out.index, infos[i].device_id);
    query_capabilities(driver, device);
    out.devices.push_back(std::move(device));
  }
}

}  // namespace

Report collect(const Registry& registry) {
  Report report;
  report.libhalo = locate_libhalo();
  report.plugins = registry.plugins();
  const std::vector<DeviceEntry> entries = registry.devices();
  report.drivers.resize(registry.driver_count());
  for (std::size_t i = 0; i < report.drivers.size(); ++i) {
    DriverReport& driver = report.drivers[i];
    driver.index = i;
    collect_driver(registry, report, entries, driver);
    if (driver.devices.empty()) {
      driver.no_devices_reason = no_devices_reason(driver);
    }
  }
  return report;
}

std::string no_devices_reason(const DriverReport& driver) {
  if (!driver.error.empty()) {
    return "the driver's devices could not be listed: " + driver.error;
  }
  const std::string description =
      driver.info ? to_string(driver.info->description) : std::string();
  if (description.rfind("no ", 0) == 0) {
    return description;
  }
  std::string reason = "the driver lists no device and gives no reason";
  if (!description.empty()) {
    reason += " (its description: \"" + description + "\")";
  }
  return reason + "; halo-info --doctor checks this machine for the usual causes";
}

}  // namespace halo::info
