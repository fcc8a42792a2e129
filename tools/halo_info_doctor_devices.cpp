// Why a loaded driver lists no device. The driver's own reason comes first;
// for the vulkan and opencl plugins the doctor then checks what their native
// loaders would find (the loader library, its ICDs, its filters), and for
// any plugin the GPU device nodes this process may not open.
#include <dlfcn.h>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

using Findings = std::vector<Finding>;

// Why the native loader |name| (or the library |variable| names instead)
// does not open, or "" when it does.
std::string native_loader_problem(const char* variable, const char* name) {
  std::string library = environment_value(variable);
  if (library.empty()) {
    library = name;
  }
  // Usually the plugin has it open already; then nothing new is loaded.
  void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
    return {};
  }
  const char* reason = dlerror();
  return library + " cannot be opened: " +
         (reason != nullptr ? reason : "unknown");
}

// The ICD search's folders, for a problem's text: those the user chose, or
// the default ones that exist.
std::string searched_text(const IcdSearch& search) {
  std::string text;
  for (const SearchedPath& path : search.paths) {
    if (search.chosen_by.empty() && path.state == "missing") {
      continue;
    }
    text += (text.empty() ? "" : ", ") + path.path + " (" + path.state + ")";
  }
  return text.empty() ? "no folder it searches exists" : text;
}

// A native API's ICDs: none at all, or none that loads.
void icd_findings(const IcdSearch& search, const std::string& id_prefix,
                  const std::string& install, const std::string& chooser,
                  Findings& out) {
  if (search.icds.empty()) {
    std::string problem =
        search.chosen_by.empty()
            ? "the " + search.api + " loader finds no driver (ICD): " +
                  searched_text(search) + " hold no ICD file"
            : search.chosen_by + " names " + searched_text(search) +
                  ", which holds no " + search.api + " driver (ICD) file";
    std::string action = install;
    if (!search.chosen_by.empty()) {
      action = "point " + search.chosen_by +
               " at a folder or file holding a driver's ICD file, or unset it "
               "to search the standard folders; or " + install;
    } else {
      action += "; or point " + chooser + " at a folder holding one";
    }
    out.push_back({id_prefix + "-icd-missing", problem, action});
    return;
  }
  if (search.loadable() == 0) {
    const IcdFile& first = search.icds.front();
    out.push_back(
        {id_prefix + "-icd-unloadable",
         "none of the " + std::to_string(search.icds.size()) + " " +
             search.api + " ICDs names a library that loads (" +
             (first.path.empty() ? first.library : first.path) + ": " +
             first.problem + ")",
         "reinstall the driver the ICD file belongs to, or remove ICD files "
         "left behind by a driver that is gone; `ldd LIBRARY` names a "
         "missing dependency"});
  }
}

void vulkan_findings(const Doctor& doctor, Findings& out) {
  const std::string problem =
      native_loader_problem("HALO_VULKAN_LIBRARY", "libvulkan.so.1");
  if (!problem.empty()) {
    out.push_back({"vulkan-loader-missing", "the Vulkan loader " + problem,
                   "install the Vulkan loader (libvulkan1 on Debian and "
                   "Ubuntu, vulkan-loader on Fedora), or point "
                   "HALO_VULKAN_LIBRARY at a libvulkan.so.1"});
    return;
  }
  icd_findings(doctor.vulkan, "vulkan",
               "install a Vulkan driver: your GPU vendor's, or Mesa's "
               "(mesa-vulkan-drivers on Debian and Ubuntu, with lavapipe on "
               "the CPU), which puts its ICD manifest in /usr/share/vulkan/icd.d",
               "VK_DRIVER_FILES", out);
  for (const char* variable :
       {"VK_LOADER_DRIVERS_SELECT", "VK_LOADER_DRIVERS_DISABLE"}) {
    const std::string value = environment_value(variable);
    if (!value.empty()) {
      out.push_back({"vulkan-drivers-filtered",
                     std::string(variable) + "='" + value +
                         "' hides drivers from the Vulkan loader",
                     std::string("unset ") + variable +
                         ", or make it name only the drivers you mean"});
    }
  }
}

void opencl_findings(const Doctor& doctor, Findings& out) {
  const std::string problem =
      native_loader_problem("HALO_OPENCL_LIBRARY", "libOpenCL.so.1");
  if (!problem.empty()) {
    out.push_back({"opencl-loader-missing", "the OpenCL ICD loader " + problem,
                   "install an OpenCL ICD loader (ocl-icd-libopencl1 on "
                   "Debian and Ubuntu, ocl-icd on Fedora), or point "
                   "HALO_OPENCL_LIBRARY at a libOpenCL.so.1"});
    return;
  }
  icd_findings(doctor.opencl, "opencl",
               "install an OpenCL driver: your GPU vendor's, or PoCL on the "
               "CPU (pocl-opencl-icd on Debian and Ubuntu), which puts a .icd "
               "file in /etc/OpenCL/vendors",
               "OCL_ICD_VENDORS", out);
}

void device_node_findings(const PluginRecord& plugin, const Doctor& doctor,
                          bool explained, Findings& out) {
  for (const DeviceNode& node : doctor.device_nodes) {
    if (!node.accessible) {
      out.push_back(
          {"device-node-permission",
           "this process may not open " + node.path +
               " for reading and writing (its group is " + node.group + ")",
           "add the user to the group " + node.group + " (`sudo usermod -aG " +
               node.group + " $USER`, then log in again); in a container, "
               "pass the device in with its permissions"});
    }
  }
  // A GPU API without any GPU node cannot see a GPU. Only a hint when
  // nothing else explains the empty list: a missing driver is the cause
  // first, and a host-only plugin needs no node.
  const bool gpu_api = plugin.name == "vulkan" || plugin.name == "opencl";
  if (gpu_api && !explained && doctor.device_nodes.empty()) {
    out.push_back({"no-gpu-device-node",
                   "no GPU device node exists (/dev/dri/renderD*, /dev/nvidia*, "
                   "/dev/kfd): the kernel shows this process no GPU",
                   "load the GPU's kernel driver (lsmod, nvidia-smi); in a "
                   "container, pass the GPU in (--gpus all, or --device "
                   "/dev/dri); a CPU driver (lavapipe, PoCL) needs no node"});
  }
}

}  // namespace

void no_device_findings(const PluginRecord& plugin, const DriverReport& driver,
                        const Doctor& doctor, Findings& out) {
  const std::size_t reason_index = out.size();
  out.push_back({"no-devices", "the driver lists no device: " +
                                   driver.no_devices_reason,
                 "see the findings below; with none, the reason is the "
                 "plugin's own and its documentation says what it needs"});
  const std::size_t before = out.size();
  if (plugin.name == "vulkan") {
    vulkan_findings(doctor, out);
  } else if (plugin.name == "opencl") {
    opencl_findings(doctor, out);
  }
  device_node_findings(plugin, doctor, out.size() > before, out);
  if (out.size() == before) {
    out[reason_index].action =
        "the reason is the plugin's own: its documentation says what it "
        "needs (a native driver, a device, a kernel module); "
        "`HALO_LOADER_DEBUG=debug halo-info` shows its log";
  }
}

}  // namespace halo::info
