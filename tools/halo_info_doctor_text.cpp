// halo-info --doctor as text: what was searched, then each plugin with its
// findings, each finding's problem followed by what to do.
#include <ostream>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

std::string plural(std::size_t count, const std::string& what) {
  return std::to_string(count) + " " + what + (count == 1 ? "" : "s");
}

void print_paths(std::ostream& out, const std::vector<SearchedPath>& paths,
                 const std::string& what, bool show_missing) {
  std::size_t shown = 0;
  for (const SearchedPath& path : paths) {
    if (!show_missing && path.state == "missing") {
      continue;
    }
    out << "  " << path.source << ": " << path.path << " (" << path.state;
    if (path.state == "folder") {
      out << ", " << plural(path.files, what);
    }
    out << ")\n";
    ++shown;
  }
  if (shown == 0) {
    out << "  (none exists)\n";
  }
}

void print_icds(std::ostream& out, const IcdSearch& search,
                const std::string& what) {
  out << "\n" << search.api << " drivers (ICDs), ";
  out << (search.chosen_by.empty() ? std::string("from the standard folders")
                                   : "as " + search.chosen_by + " says")
      << ":\n";
  print_paths(out, search.paths, what, !search.chosen_by.empty());
  for (const IcdFile& icd : search.icds) {
    out << "  ICD " << (icd.path.empty() ? "(named directly)" : icd.path)
        << ": " << (icd.library.empty() ? "(no library)" : icd.library) << ": "
        << (icd.problem.empty() ? "loads" : icd.problem) << '\n';
  }
}

void print_findings(std::ostream& out, const std::vector<Finding>& findings,
                    int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (const Finding& finding : findings) {
    out << pad << "[" << finding.id << "] " << finding.problem << '\n'
        << pad << "  what to do: " << finding.action << '\n';
  }
}

void print_plugin(std::ostream& out, const PluginDiagnosis& plugin) {
  out << "  " << plugin.name << ": ";
  if (plugin.findings.empty()) {
    out << "OK, " << plural(plugin.device_count, "device") << '\n';
    return;
  }
  out << plugin.state << ", no device\n";
  print_findings(out, plugin.findings, 4);
}

}  // namespace

void print_doctor_text(std::ostream& out, const Report& report,
                       const Doctor& doctor) {
  out << "halo " << halo_version() << ", ABI "
      << version_string(HALO_ABI_VERSION) << "; libhalo "
      << (report.libhalo.path.empty() ? "(not found)" : report.libhalo.path);
  if (!report.libhalo.abi.empty()) {
    out << " (ABI " << report.libhalo.abi << ")";
  }
  out << "\n\nEnvironment:\n";
  for (const auto& [name, value] : doctor.environment) {
    out << "  " << name << "=" << value << '\n';
  }
  if (doctor.environment.empty()) {
    out << "  (no variable that changes what is found is set)\n";
  }
  out << "\nPlugin manifests, where libhalo searches them:\n";
  print_paths(out, doctor.manifest_paths, "manifest", true);
  print_icds(out, doctor.vulkan, "manifest");
  print_icds(out, doctor.opencl, ".icd file");
  out << "\nGPU device nodes:\n";
  for (const DeviceNode& node : doctor.device_nodes) {
    out << "  " << node.path << ": "
        << (node.accessible ? "accessible" : "NOT accessible") << " (group "
        << node.group << ")\n";
  }
  if (doctor.device_nodes.empty()) {
    out << "  (none)\n";
  }
  if (!doctor.findings.empty()) {
    out << "\nThis machine:\n";
    print_findings(out, doctor.findings, 2);
  }
  out << "\nPlugins:\n";
  std::size_t with_devices = 0;
  for (const PluginDiagnosis& plugin : doctor.plugins) {
    print_plugin(out, plugin);
    with_devices += plugin.findings.empty() ? 1 : 0;
  }
  if (doctor.plugins.empty()) {
    out << "  (none found)\n";
  }
  out << "\nPlugins that show devices: " << with_devices << " of "
      << doctor.plugins.size() << ".\n";
}

}  // namespace halo::info
