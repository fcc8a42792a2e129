// What halo-info reports, collected once and printed as text or JSON, so both
// outputs always say the same thing.
#ifndef HALO_TOOLS_HALO_INFO_REPORT_HPP_
#define HALO_TOOLS_HALO_INFO_REPORT_HPP_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "halo/halo.hpp"

namespace halo::info {

// The libhalo this process runs with, which may not be the one halo-info was
// built beside (LD_LIBRARY_PATH, another prefix).
struct LibhaloReport {
  // Resolved path of the loaded library; "" when it cannot be found.
  std::string path;
  // "MAJOR.MINOR" read from the versioned file name (libhalo.so.1.1.0); ""
  // when the name carries none. libhalo exports no version call, and its file
  // is versioned by the ABI it speaks.
  std::string abi;
};

struct DeviceReport {
  // The device's index among its driver's devices, in the driver's order:
  // what `halo-cts --device` and halo_driver_query_device_info take.
  std::size_t index = 0;
  // Its index in the registry's list of every device
  // (halo_registry_create_device); empty when the registry's snapshot does
  // not hold it (a device that appeared after the scan).
  std::optional<std::size_t> registry_index;
  halo_device_info_t info{};
  // Present when the device could be created and queried; else |error| says
  // why not.
  std::optional<halo_device_capabilities_t> capabilities;
  std::string error;
};

struct DriverReport {
  // The driver's index in the registry (halo_registry_driver).
  std::size_t index = 0;
  // The record of the plugin that made the driver; its name is what
  // `halo-cts --plugin` takes.
  std::optional<PluginRecord> plugin;
  // Present when query_info succeeded.
  std::optional<halo_driver_info_t> info;
  // Why the info or the device list could not be read; "" when both were.
  std::string error;
  std::vector<DeviceReport> devices;
  // Never empty when |devices| is: the driver's own reason, or a sentence
  // saying it gave none.
  std::string no_devices_reason;
};

struct Report {
  LibhaloReport libhalo;
  std::vector<PluginRecord> plugins;
  std::vector<DriverReport> drivers;
};

// Collects everything |registry| knows. A driver or device that fails to
// answer is reported with its error; only a failure to list at all throws.
Report collect(const Registry& registry);

// Finds the libhalo loaded in this process.
LibhaloReport locate_libhalo();

// The reason a driver lists no device, from its description: the shipped
// plugins begin it with "no " ("no Vulkan devices: …"); any other text is
// quoted in a sentence saying the driver gave no reason.
std::string no_devices_reason(const DriverReport& driver);

// Names for the C enums and bit sets, shared by both printers. Unknown values
// are spelt as numbers so that newer plugins still show what they report.
std::string device_type_name(std::uint32_t type);
std::vector<std::string> feature_names(halo_device_features_t features);
std::vector<std::string> memory_type_names(halo_memory_type_t types);
std::vector<std::string> handle_type_names(halo_external_handle_type_t types);
std::vector<std::string> split_formats(const std::string& formats);
std::string uuid_string(const std::uint8_t (&uuid)[16]);
std::string hex(std::uint64_t value);

// The halo release halo-info belongs to ("0.1.0").
std::string halo_version();

void print_text(std::ostream& out, const Report& report);

}  // namespace halo::info

#endif  // HALO_TOOLS_HALO_INFO_REPORT_HPP_
