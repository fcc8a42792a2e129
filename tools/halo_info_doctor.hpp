// halo-info --doctor: why a plugin shows no device, and what to do.
//
// libhalo records why it skipped a plugin, and a driver says in its
// description why it lists no device; the doctor adds what only the host can
// check: the folders libhalo and the native loaders search (through the
// environment variables they honour, so a check can be pointed at any
// folder), the plugin filters, the libraries manifests name, the ABI range,
// and access to GPU device nodes. Every finding has a stable id, a problem
// and what to do (tools/README.md lists the ids).
#ifndef HALO_TOOLS_HALO_INFO_DOCTOR_HPP_
#define HALO_TOOLS_HALO_INFO_DOCTOR_HPP_

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "halo_info_report.hpp"

namespace halo::info {

// What halo-info asked the registry for, which decides where libhalo looked.
struct ScanSettings {
  std::vector<std::string> plugin_paths;
  bool ignore_environment = false;
  bool no_default_folders = false;
};

struct Finding {
  std::string id;
  std::string problem;
  std::string action;
};

// A file or folder a loader searches. |state| is "folder", "file",
// "missing" or "other" (neither a file nor a folder); |files| counts the
// folder's entries with the extension the loader reads.
struct SearchedPath {
  std::string path;
  std::string source;
  std::string state;
  std::size_t files = 0;
};

// One ICD of a native loader: the manifest (or .icd file), the library it
// names, and why that library does not load ("" when it does).
struct IcdFile {
  std::string path;
  std::string library;
  std::string problem;
};

// Where a native loader (Vulkan, OpenCL) looks for drivers, as chosen by its
// environment variables, and what it finds there.
struct IcdSearch {
  std::string api;
  // The variable that replaced the default folders; "" for the defaults.
  std::string chosen_by;
  std::vector<SearchedPath> paths;
  std::vector<IcdFile> icds;
  // How many ICDs name a library that loads.
  std::size_t loadable() const;
};

// A GPU device node and whether this process may open it for reading and
// writing, as a driver must.
struct DeviceNode {
  std::string path;
  bool accessible = false;
  // The node's group, which a user joins for access.
  std::string group;
};

struct PluginDiagnosis {
  std::string name;
  std::string state;
  std::size_t device_count = 0;
  // Empty when the plugin shows its devices.
  std::vector<Finding> findings;
};

struct Doctor {
  // The environment variables that decide what libhalo and the native
  // loaders find, as set now (unset ones are left out).
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<SearchedPath> manifest_paths;
  IcdSearch vulkan;
  IcdSearch opencl;
  std::vector<DeviceNode> device_nodes;
  std::vector<PluginDiagnosis> plugins;
  // Findings about no plugin in particular (no plugin found at all).
  std::vector<Finding> findings;
};

// Examines this machine in the light of |report|.
Doctor examine(const Report& report, const ScanSettings& settings);

// The pieces examine() puts together, each in its own file.
std::vector<std::pair<std::string, std::string>> relevant_environment();
std::vector<SearchedPath> manifest_search_paths(const ScanSettings& settings,
                                                const LibhaloReport& libhalo);
IcdSearch vulkan_icds();
IcdSearch opencl_icds();
std::vector<DeviceNode> gpu_device_nodes();
PluginDiagnosis diagnose_plugin(const PluginRecord& plugin,
                                const DriverReport* driver,
                                const ScanSettings& settings,
                                const Report& report, const Doctor& doctor);
// Why the loaded |plugin|'s |driver| lists no device: its own reason, then
// what the host shows for the native API the plugin runs on.
void no_device_findings(const PluginRecord& plugin, const DriverReport& driver,
                        const Doctor& doctor, std::vector<Finding>& out);

// Inspects |path| as a loader would: a folder's files ending in |extension|
// are counted.
SearchedPath inspect_path(const std::string& path, const std::string& source,
                          const std::string& extension);
// The value of environment variable |name|, or "" when unset.
std::string environment_value(const char* name);
// Splits |text| at |separator|, dropping empty parts.
std::vector<std::string> split_list(const std::string& text, char separator);

void print_doctor_text(std::ostream& out, const Report& report,
                       const Doctor& doctor);

}  // namespace halo::info

#endif  // HALO_TOOLS_HALO_INFO_DOCTOR_HPP_
