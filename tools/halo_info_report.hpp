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

struct DeviceReport {
  // The index of the device in the registry's list.
  std::size_t index = 0;
  halo_device_info_t info{};
  // Present when the device could be created and queried; else |error| says
  // why not.
  std::optional<halo_device_capabilities_t> capabilities;
  std::string error;
};

struct DriverReport {
  std::size_t index = 0;
  // Present when query_info succeeded; else |error| says why not.
  std::optional<halo_driver_info_t> info;
  std::string error;
  std::vector<DeviceReport> devices;
};

struct Report {
  std::vector<PluginRecord> plugins;
  std::vector<DriverReport> drivers;
};

// Collects everything |registry| knows. A driver or device that fails to
// answer is reported with its error; only a failure to list at all throws.
Report collect(const Registry& registry);

// Names for the C enums and bit sets, shared by both printers. Unknown values
// are spelt as numbers so that newer plugins still show what they report.
std::string device_type_name(std::uint32_t type);
std::vector<std::string> feature_names(halo_device_features_t features);
std::vector<std::string> memory_type_names(halo_memory_type_t types);
std::vector<std::string> split_formats(const std::string& formats);
std::string uuid_string(const std::uint8_t (&uuid)[16]);
std::string hex(std::uint64_t value);

void print_text(std::ostream& out, const Report& report);
void print_json(std::ostream& out, const Report& report);

}  // namespace halo::info

#endif  // HALO_TOOLS_HALO_INFO_REPORT_HPP_
