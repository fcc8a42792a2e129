// halo-info --doctor: puts the host's checks together and diagnoses every
// plugin libhalo considered.
#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

const DriverReport* driver_of(const Report& report, const PluginRecord& plugin) {
  for (const DriverReport& driver : report.drivers) {
    if (driver.plugin && driver.plugin->name == plugin.name &&
        driver.plugin->library_path == plugin.library_path) {
      return &driver;
    }
  }
  return nullptr;
}

void machine_findings(const Report& report, const ScanSettings& settings,
                      Doctor& doctor) {
  const std::string replace = environment_value("HALO_PLUGIN_FILES");
  if (!settings.ignore_environment && !replace.empty()) {
    doctor.findings.push_back(
        {"plugin-files-replace",
         "HALO_PLUGIN_FILES='" + replace +
             "' is set, so libhalo searches only the paths it names and none "
             "of the default folders",
         "unset HALO_PLUGIN_FILES to search the default folders too, or name "
         "extra paths in HALO_ADD_PLUGIN_FILES instead"});
  }
  if (report.plugins.empty()) {
    doctor.findings.push_back(
        {"no-plugins",
         "libhalo found no plugin: no path it searched (listed above) holds a "
         "manifest",
         "install halo's plugins (cmake --install puts them in "
         "<prefix>/lib/halo, their manifests in <prefix>/share/halo/plugins.d), "
         "or name a manifest or plugin library in HALO_ADD_PLUGIN_FILES"});
  }
}

}  // namespace

Doctor examine(const Report& report, const ScanSettings& settings) {
  Doctor doctor;
  doctor.environment = relevant_environment();
  doctor.manifest_paths = manifest_search_paths(settings, report.libhalo);
  doctor.vulkan = vulkan_icds();
  doctor.opencl = opencl_icds();
  doctor.device_nodes = gpu_device_nodes();
  machine_findings(report, settings, doctor);
  for (const PluginRecord& plugin : report.plugins) {
    doctor.plugins.push_back(diagnose_plugin(
        plugin, driver_of(report, plugin), settings, report, doctor));
  }
  return doctor;
}

}  // namespace halo::info
