// The doctor's findings for one plugin: why libhalo skipped it, or why its
// driver lists no device, each with what to do. Host-side checks come first
// (a file that is not there, a filter that is set), so that a finding names
// the fix rather than repeating the loader's words; the loader's reason is
// the fallback.
#include <fnmatch.h>

#include <filesystem>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

namespace fs = std::filesystem;

using Findings = std::vector<Finding>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The loader's globs: comma-separated, blanks around each ignored.
std::vector<std::string> globs_of(const std::string& text) {
  std::vector<std::string> globs;
  for (std::string glob : split_list(text, ',')) {
    glob.erase(0, glob.find_first_not_of(" \t"));
    glob.erase(glob.find_last_not_of(" \t") + 1);
    if (!glob.empty()) {
      globs.push_back(glob);
    }
  }
  return globs;
}

std::string matching_glob(const std::string& list, const std::string& name) {
  for (const std::string& glob : globs_of(list)) {
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) {
      return glob;
    }
  }
  return {};
}

// HALO_PLUGINS_DISABLE before HALO_PLUGINS_SELECT, as libhalo applies them.
void filter_findings(const PluginRecord& plugin, Findings& out) {
  const std::string disable = environment_value("HALO_PLUGINS_DISABLE");
  const std::string select = environment_value("HALO_PLUGINS_SELECT");
  const std::string glob = matching_glob(disable, plugin.name);
  if (!glob.empty()) {
    out.push_back({"filtered",
                   "HALO_PLUGINS_DISABLE='" + disable + "' disables it (the glob '" +
                       glob + "' matches '" + plugin.name + "')",
                   "remove '" + glob +
                       "' from HALO_PLUGINS_DISABLE, or unset HALO_PLUGINS_DISABLE"});
  } else if (!globs_of(select).empty() &&
             matching_glob(select, plugin.name).empty()) {
    out.push_back({"filtered",
                   "HALO_PLUGINS_SELECT='" + select +
                       "' selects only other plugins (no glob matches '" +
                       plugin.name + "')",
                   "add '" + plugin.name +
                       "' to HALO_PLUGINS_SELECT (comma-separated globs), or "
                       "unset HALO_PLUGINS_SELECT"});
  } else if (plugin.skip_code == HALO_STATUS_CANCELLED) {
    // Filtered by a value the environment no longer holds (--plugin-path
    // scans read the same environment, so this is rare).
    out.push_back({"filtered", plugin.skip_reason,
                   "change HALO_PLUGINS_SELECT or HALO_PLUGINS_DISABLE so that "
                   "they let '" + plugin.name + "' through"});
  }
}

// Returns false when the manifest could not be read, so that nothing read
// from it (name, library, ABI) is trusted.
bool manifest_findings(const PluginRecord& plugin, Findings& out) {
  if (plugin.manifest_path.empty()) {
    return true;
  }
  const SearchedPath manifest = inspect_path(plugin.manifest_path, "", ".json");
  if (manifest.state == "missing") {
    out.push_back({"manifest-missing",
                   "the manifest " + plugin.manifest_path + " does not exist",
                   "correct or remove the path in " + plugin.source +
                       ", or reinstall the plugin"});
    return false;
  }
  if (plugin.skip_code == HALO_STATUS_INVALID_ARGUMENT &&
      plugin.skip_reason.rfind("manifest ", 0) == 0) {
    out.push_back({"manifest-invalid", plugin.skip_reason,
                   "fix the manifest or reinstall the plugin (whose install "
                   "writes it): a regular JSON file with file_format_version, "
                   "plugin.name, plugin.library_path (relative to the "
                   "manifest's folder), plugin.abi_version (\"MAJOR.MINOR\") "
                   "and plugin.priority"});
    return false;
  }
  return true;
}

void abi_findings(const PluginRecord& plugin, const Report& report,
                  Findings& out) {
  const std::string libhalo_abi = report.libhalo.abi.empty()
                                      ? version_string(HALO_ABI_VERSION)
                                      : report.libhalo.abi;
  // The major is the digits before the first dot; a name without digits
  // there reads as 0 and is reported as a mismatch rather than thrown on.
  std::uint32_t libhalo_major = 0;
  for (std::size_t i = 0; i < libhalo_abi.size() && libhalo_abi[i] >= '0' &&
                          libhalo_abi[i] <= '9' && libhalo_major < 65536;
       ++i) {
    libhalo_major = libhalo_major * 10 + static_cast<std::uint32_t>(libhalo_abi[i] - '0');
  }
  if (plugin.abi_version == 0 ||
      HALO_VERSION_MAJOR(plugin.abi_version) == libhalo_major) {
    return;
  }
  const std::string major = std::to_string(libhalo_major);
  out.push_back(
      {"abi-out-of-range",
       "the plugin declares ABI " + version_string(plugin.abi_version) +
           "; this libhalo (ABI " + libhalo_abi + ") loads plugins of ABI " +
           major + ".x only",
       "install a build of the plugin made against halo's ABI " + major +
           " headers, or run it with a libhalo of ABI " +
           std::to_string(HALO_VERSION_MAJOR(plugin.abi_version)) + ".x"});
}

// The library a manifest names, or a library named directly.
bool library_findings(const PluginRecord& plugin, Findings& out) {
  if (plugin.library_path.empty()) {
    return true;
  }
  std::error_code error;
  if (fs::exists(plugin.library_path, error)) {
    return true;
  }
  const bool by_manifest = !plugin.manifest_path.empty();
  out.push_back(
      {"library-missing",
       "the library " + plugin.library_path + " does not exist" +
           (by_manifest ? " (the manifest " + plugin.manifest_path + " names it)"
                        : ""),
       by_manifest ? "reinstall the plugin, or correct plugin.library_path in " +
                         plugin.manifest_path +
                         " (a path relative to the manifest's folder)"
                   : "reinstall the plugin, or correct the path in " +
                         plugin.source});
  return false;
}

// "dlopen(X) failed: libdep.so.1: cannot open shared object file: …" names a
// dependency the dynamic linker did not find.
void dlopen_findings(const PluginRecord& plugin, Findings& out) {
  const std::string& reason = plugin.skip_reason;
  const std::string marker = ": cannot open shared object file";
  const std::size_t end = reason.find(marker);
  const std::size_t start = reason.find("failed: ");
  if (end != std::string::npos && start != std::string::npos && start < end) {
    const std::string dependency = reason.substr(start + 8, end - start - 8);
    out.push_back({"dependency-missing",
                   plugin.library_path + " needs " + dependency +
                       ", which the dynamic linker cannot find",
                   "install the package that provides " + dependency +
                       ", or add its folder to LD_LIBRARY_PATH (`ldd " +
                       plugin.library_path + "` lists what is missing)"});
    return;
  }
  out.push_back({"dlopen-failed", reason,
                 "check that " + plugin.library_path +
                     " is a shared library built for this machine (`file " +
                     plugin.library_path + "`), and reinstall the plugin"});
}

void skipped_findings(const PluginRecord& plugin, const ScanSettings& settings,
                      const Report& report, Findings& out) {
  if (manifest_findings(plugin, out)) {
    abi_findings(plugin, report, out);
    if (!settings.ignore_environment) {
      filter_findings(plugin, out);
    }
    // libhalo's own dlopen failure ("dlopen(LIBRARY) failed: …"), not a
    // plugin's reason that mentions one.
    if (library_findings(plugin, out) &&
        plugin.skip_code == HALO_STATUS_UNAVAILABLE &&
        plugin.skip_reason.rfind("dlopen(" + plugin.library_path + ")", 0) == 0) {
      dlopen_findings(plugin, out);
    }
  }
  if (!out.empty()) {
    return;
  }
  if (contains(plugin.skip_reason, "exports no halo_plugin_query")) {
    out.push_back({"not-a-plugin", plugin.skip_reason,
                   "name a halo plugin instead: its library exports "
                   "halo_plugin_query (`nm -D --defined-only " +
                       plugin.library_path + "`)"});
  } else if (plugin.skip_code == HALO_STATUS_ALREADY_EXISTS) {
    out.push_back({"duplicate", plugin.skip_reason,
                   "nothing, unless this copy is the one you meant: then "
                   "remove the other copy's manifest"});
  } else {
    // INTERNAL is libhalo refusing what the plugin handed over (DESIGN.md
    // §6): nothing on this machine fixes that.
    const std::string action =
        plugin.skip_code == HALO_STATUS_INTERNAL
            ? "the plugin breaks halo's ABI: report this reason to whoever "
              "ships it"
            : "the reason is the plugin's or libhalo's own; the plugin's "
              "documentation says what it needs, and "
              "`HALO_LOADER_DEBUG=debug halo-info` shows the loader's log";
    out.push_back({"plugin-refused",
                   std::string(code_name(plugin.skip_code)) + ": " +
                       plugin.skip_reason,
                   action});
  }
}

}  // namespace

PluginDiagnosis diagnose_plugin(const PluginRecord& plugin,
                                const DriverReport* driver,
                                const ScanSettings& settings,
                                const Report& report, const Doctor& doctor) {
  PluginDiagnosis diagnosis;
  diagnosis.name = plugin.name;
  diagnosis.state = plugin.loaded() ? "loaded" : "skipped";
  diagnosis.device_count =
      plugin.loaded() && driver != nullptr ? driver->devices.size() : 0;
  if (!plugin.loaded()) {
    skipped_findings(plugin, settings, report, diagnosis.findings);
  } else if (driver != nullptr && driver->devices.empty()) {
    no_device_findings(plugin, *driver, doctor, diagnosis.findings);
  }
  return diagnosis;
}

}  // namespace halo::info
