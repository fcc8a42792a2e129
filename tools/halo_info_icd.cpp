// The drivers the native loaders would find: Vulkan ICD manifests and
// OpenCL .icd files, searched where the Vulkan loader and ocl-icd search
// them and through the same environment variables, so that a folder given
// to the loader is the folder the doctor reads.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

namespace fs = std::filesystem;

// Why |library| would not load, or "" when it does. A name without a slash is
// found by the dynamic linker's search, as the native loaders find it. The
// library stays loaded: an ICD may start threads or register exit handlers
// that must not outlive its code, which is why the native loaders never
// unload one either.
std::string library_problem(const std::string& library) {
  if (library.empty()) {
    return "it names no library";
  }
  std::error_code error;
  if (library.find('/') != std::string::npos && !fs::exists(library, error)) {
    return "the library " + library + " does not exist";
  }
  if (dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL) == nullptr) {
    const char* reason = dlerror();
    return "dlopen failed: " + std::string(reason != nullptr ? reason : "unknown");
  }
  return {};
}

// The files of |searched| to read: a folder's files ending in |extension|,
// sorted, or the file itself.
std::vector<std::string> files_of(const SearchedPath& searched,
                                  const std::string& extension) {
  std::vector<std::string> files;
  if (searched.state == "file") {
    files.push_back(searched.path);
  } else if (searched.state == "folder") {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(searched.path, error)) {
      if (entry.path().extension() == extension) {
        files.push_back(entry.path().string());
      }
    }
    std::sort(files.begin(), files.end());
  }
  return files;
}

std::string read_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(stream),
                     std::istreambuf_iterator<char>());
}

// A Vulkan ICD manifest's ICD.library_path; a relative path with a slash is
// relative to the manifest's folder, as the Vulkan loader reads it.
IcdFile read_vulkan_icd(const std::string& path) {
  IcdFile icd{path, "", ""};
  const nlohmann::json json = nlohmann::json::parse(read_file(path), nullptr,
                                                    /*allow_exceptions=*/false);
  const auto* library = json.is_object() && json.contains("ICD") &&
                                json["ICD"].is_object() &&
                                json["ICD"].contains("library_path")
                            ? &json["ICD"]["library_path"]
                            : nullptr;
  if (library == nullptr || !library->is_string()) {
    icd.problem = "not a Vulkan ICD manifest (no ICD.library_path)";
    return icd;
  }
  icd.library = library->get<std::string>();
  if (icd.library.find('/') != std::string::npos &&
      fs::path(icd.library).is_relative()) {
    icd.library = (fs::path(path).parent_path() / icd.library).string();
  }
  icd.problem = library_problem(icd.library);
  return icd;
}

// An OpenCL .icd file: the library on its first line.
IcdFile read_opencl_icd(const std::string& path) {
  IcdFile icd{path, "", ""};
  std::ifstream stream(path);
  std::getline(stream, icd.library);
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  icd.library.erase(icd.library.begin(),
                    std::find_if(icd.library.begin(), icd.library.end(), not_space));
  icd.library.erase(
      std::find_if(icd.library.rbegin(), icd.library.rend(), not_space).base(),
      icd.library.end());
  icd.problem = library_problem(icd.library);
  return icd;
}

std::string home_relative(const char* variable, const char* fallback) {
  std::string value = environment_value(variable);
  if (value.empty()) {
    const std::string home = environment_value("HOME");
    value = home.empty() ? std::string() : home + fallback;
  }
  return value;
}

void add_vulkan_defaults(IcdSearch& search) {
  const auto add = [&](const std::string& folder, const char* source) {
    if (!folder.empty()) {
      search.paths.push_back(
          inspect_path(folder + "/vulkan/icd.d", source, ".json"));
    }
  };
  add(home_relative("XDG_CONFIG_HOME", "/.config"), "XDG_CONFIG_HOME");
  std::string config_dirs = environment_value("XDG_CONFIG_DIRS");
  for (const std::string& folder :
       split_list(config_dirs.empty() ? "/etc/xdg" : config_dirs, ':')) {
    add(folder, "XDG_CONFIG_DIRS");
  }
  add("/etc", "etc");
  add(home_relative("XDG_DATA_HOME", "/.local/share"), "XDG_DATA_HOME");
  std::string data_dirs = environment_value("XDG_DATA_DIRS");
  for (const std::string& folder : split_list(
           data_dirs.empty() ? "/usr/local/share:/usr/share" : data_dirs, ':')) {
    add(folder, "XDG_DATA_DIRS");
  }
}

}  // namespace

std::size_t IcdSearch::loadable() const {
  return static_cast<std::size_t>(
      std::count_if(icds.begin(), icds.end(),
                    [](const IcdFile& icd) { return icd.problem.empty(); }));
}

IcdSearch vulkan_icds() {
  IcdSearch search;
  search.api = "Vulkan";
  for (const std::string& path :
       split_list(environment_value("VK_ADD_DRIVER_FILES"), ':')) {
    search.paths.push_back(inspect_path(path, "VK_ADD_DRIVER_FILES", ".json"));
  }
  // VK_ICD_FILENAMES is the older name of VK_DRIVER_FILES, read only when
  // the newer one is unset.
  for (const char* variable : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
    const std::string value = environment_value(variable);
    if (!value.empty()) {
      search.chosen_by = variable;
      for (const std::string& path : split_list(value, ':')) {
        search.paths.push_back(inspect_path(path, variable, ".json"));
      }
      break;
    }
  }
  if (search.chosen_by.empty()) {
    add_vulkan_defaults(search);
  }
  for (const SearchedPath& searched : search.paths) {
    for (const std::string& file : files_of(searched, ".json")) {
      search.icds.push_back(read_vulkan_icd(file));
    }
  }
  return search;
}

IcdSearch opencl_icds() {
  IcdSearch search;
  search.api = "OpenCL";
  std::string vendors = environment_value("OPENCL_VENDOR_PATH");
  if (!vendors.empty()) {
    search.chosen_by = "OPENCL_VENDOR_PATH";
  } else {
    vendors = "/etc/OpenCL/vendors";
  }
  const std::string chosen = environment_value("OCL_ICD_VENDORS");
  std::error_code error;
  if (chosen.empty()) {
    search.paths.push_back(inspect_path(
        vendors, search.chosen_by.empty() ? "default" : search.chosen_by, ".icd"));
  } else if (fs::is_directory(chosen, error) ||
             fs::path(chosen).extension() == ".icd") {
    // A folder replaces the vendors folder; a .icd file is the only ICD (a
    // bare name is looked for in the vendors folder first).
    search.chosen_by = "OCL_ICD_VENDORS";
    std::string path = chosen;
    if (chosen.find('/') == std::string::npos &&
        fs::is_regular_file(fs::path(vendors) / chosen, error)) {
      path = (fs::path(vendors) / chosen).string();
    }
    search.paths.push_back(inspect_path(path, "OCL_ICD_VENDORS", ".icd"));
  } else {
    // Anything else is the ICD library itself.
    search.chosen_by = "OCL_ICD_VENDORS";
    search.icds.push_back({"", chosen, library_problem(chosen)});
  }
  for (const SearchedPath& searched : search.paths) {
    for (const std::string& file : files_of(searched, ".icd")) {
      search.icds.push_back(read_opencl_icd(file));
    }
  }
  // Libraries loaded besides the .icd files by the Khronos ICD loader.
  for (const std::string& library :
       split_list(environment_value("OCL_ICD_FILENAMES"), ':')) {
    search.icds.push_back({"", library, library_problem(library)});
  }
  return search;
}

}  // namespace halo::info
