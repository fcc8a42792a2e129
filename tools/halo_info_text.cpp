// halo-info's human-readable output. A skipped plugin's line holds its name,
// the code name and the reason together, so `grep NAME` finds why it was
// skipped; a device is numbered as its driver numbers it, the index
// `halo-cts --device` takes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "halo_info_report.hpp"

namespace halo::info {
namespace {

std::string join(const std::vector<std::string>& names) {
  if (names.empty()) {
    return "none";
  }
  std::string text;
  for (const std::string& name : names) {
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

std::string or_none(const std::string& text) {
  return text.empty() ? "(none)" : text;
}

void field(std::ostream& out, int indent, const char* label,
           const std::string& value) {
  out << std::string(static_cast<std::size_t>(indent), ' ') << label << ": "
      << value << '\n';
}

void print_plugin(std::ostream& out, const PluginRecord& plugin) {
  out << "  " << plugin.name << ": ";
  if (plugin.loaded()) {
    out << "loaded\n";
  } else {
    out << "skipped: " << code_name(plugin.skip_code) << ": "
        << plugin.skip_reason << '\n';
  }
  field(out, 4, "source", plugin.source);
  field(out, 4, "manifest", or_none(plugin.manifest_path));
  field(out, 4, "library", or_none(plugin.library_path));
  field(out, 4, "ABI version",
        plugin.abi_version == 0 ? "unknown" : version_string(plugin.abi_version));
  field(out, 4, "priority", std::to_string(plugin.priority));
}

// A limit of ABI 1.2: 0 is one the plugin does not report (built for an
// older ABI, or the device lacks the feature), the type's largest value is
// no limit.
template <typename T>
std::string limit_text(T value) {
  if (value == 0) return "(not reported)";
  if (value == std::numeric_limits<T>::max()) return "no limit";
  return std::to_string(value);
}

std::string limit_text(const std::uint32_t (&values)[3]) {
  if (values[0] == 0 && values[1] == 0 && values[2] == 0) {
    return "(not reported)";
  }
  return limit_text(values[0]) + " x " + limit_text(values[1]) + " x " +
         limit_text(values[2]);
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes == 0) return "(not reported)";
  char text[64];
  std::snprintf(text, sizeof(text), "%llu (%.1f GiB)",
                static_cast<unsigned long long>(bytes),
                static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

void print_capabilities(std::ostream& out,
                        const halo_device_capabilities_t& caps) {
  field(out, 6, "queues", std::to_string(caps.queue_count));
  field(out, 6, "features", join(feature_names(caps.features)));
  field(out, 6, "memory types", join(memory_type_names(caps.memory_types)));
  field(out, 6, "executable formats",
        join(split_formats(to_string(caps.executable_formats))));
  field(out, 6, "max semaphore value difference",
        std::to_string(caps.max_semaphore_value_difference));
  field(out, 6, "max buffer size", std::to_string(caps.max_buffer_size));
  field(out, 6, "min buffer alignment", std::to_string(caps.min_buffer_alignment));
  field(out, 6, "device memory size", bytes_text(caps.device_memory_size));
  field(out, 6, "max workgroup size", limit_text(caps.max_workgroup_size));
  field(out, 6, "max workgroup invocations",
        limit_text(caps.max_workgroup_invocations));
  field(out, 6, "max workgroup count", limit_text(caps.max_workgroup_count));
  field(out, 6, "max workgroups per dispatch",
        limit_text(caps.max_workgroup_count_total));
  field(out, 6, "max bindings", limit_text(caps.max_binding_count));
  field(out, 6, "max constant size", limit_text(caps.max_constant_size));
  field(out, 6, "buffers export as", join(handle_type_names(caps.buffer_export_types)));
  field(out, 6, "buffers import from", join(handle_type_names(caps.buffer_import_types)));
  field(out, 6, "semaphores export as",
        join(handle_type_names(caps.semaphore_export_types)));
  field(out, 6, "semaphores import from",
        join(handle_type_names(caps.semaphore_import_types)));
  field(out, 6, "semaphores import for device waits from",
        join(handle_type_names(caps.semaphore_wait_import_types)));
  if (caps.host_allocation_alignment != 0) {
    field(out, 6, "host allocation alignment",
          std::to_string(caps.host_allocation_alignment));
  }
}

void print_device(std::ostream& out, const DriverReport& driver,
                  const DeviceReport& device) {
  const halo_device_info_t& info = device.info;
  out << "    device " << device.index << ": " << to_string(info.name) << " ("
      << device_type_name(info.type) << ")\n";
  if (driver.plugin) {
    field(out, 6, "halo-cts",
          "--plugin " + driver.plugin->name + " --device " +
              std::to_string(device.index));
  }
  field(out, 6, "registry index",
        device.registry_index ? std::to_string(*device.registry_index)
                              : "(not in the registry's snapshot)");
  field(out, 6, "device id", std::to_string(info.device_id));
  field(out, 6, "vendor", or_none(to_string(info.vendor)));
  field(out, 6, "driver version", or_none(to_string(info.driver_version)));
  field(out, 6, "native API", or_none(to_string(info.native_api)));
  field(out, 6, "compute units", limit_text(info.compute_units));
  field(out, 6, "vendor id", hex(info.vendor_id));
  field(out, 6, "native device id", hex(info.native_device_id));
  field(out, 6, "uuid", uuid_string(info.uuid));
  if (device.capabilities) {
    print_capabilities(out, *device.capabilities);
  }
  if (!device.error.empty()) {
    field(out, 6, "error", device.error);
  }
}

void print_driver(std::ostream& out, const DriverReport& driver) {
  out << "  driver " << driver.index << ": ";
  if (driver.info) {
    out << to_string(driver.info->name) << ' ' << to_string(driver.info->version)
        << '\n';
  } else {
    out << "(no info)\n";
  }
  if (driver.plugin) {
    field(out, 4, "plugin",
          driver.plugin->name + " (ABI " +
              version_string(driver.plugin->abi_version) + "): " +
              driver.plugin->library_path);
  }
  if (driver.info) {
    field(out, 4, "description", or_none(to_string(driver.info->description)));
  }
  if (!driver.error.empty()) {
    field(out, 4, "error", driver.error);
  }
  field(out, 4, "devices", std::to_string(driver.devices.size()));
  if (driver.devices.empty()) {
    field(out, 4, "no devices", driver.no_devices_reason);
  }
  for (const DeviceReport& device : driver.devices) {
    print_device(out, driver, device);
  }
}

}  // namespace

void print_text(std::ostream& out, const Report& report) {
  std::size_t loaded = 0;
  for (const PluginRecord& plugin : report.plugins) {
    loaded += plugin.loaded() ? 1 : 0;
  }
  out << "halo " << halo_version() << ", ABI " << version_string(HALO_ABI_VERSION)
      << "; libhalo " << or_none(report.libhalo.path);
  if (!report.libhalo.abi.empty()) {
    out << " (ABI " << report.libhalo.abi << ")";
  }
  out << "\n\n";
  out << "Plugins: " << report.plugins.size() << " considered, " << loaded
      << " loaded, " << report.plugins.size() - loaded << " skipped\n";
  for (const PluginRecord& plugin : report.plugins) {
    print_plugin(out, plugin);
  }
  bool missing_devices = loaded < report.plugins.size();
  out << "\nDrivers: " << report.drivers.size() << '\n';
  for (const DriverReport& driver : report.drivers) {
    print_driver(out, driver);
    missing_devices = missing_devices || driver.devices.empty();
  }
  if (missing_devices || report.plugins.empty()) {
    out << "\nA plugin shows no device: `halo-info --doctor` says why and what "
           "to do.\n";
  }
}

}  // namespace halo::info
