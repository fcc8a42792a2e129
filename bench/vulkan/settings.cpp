// Settings from the environment, with the build's paths as defaults.
#include "settings.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#ifndef HALO_BENCH_VULKAN_MANIFEST
#error "HALO_BENCH_VULKAN_MANIFEST must name the vulkan plugin's manifest"
#endif
#ifndef HALO_BENCH_VULKAN_KERNEL
#error "HALO_BENCH_VULKAN_KERNEL must name the empty kernel's SPIR-V"
#endif

namespace halo::bench {
namespace {

namespace fs = std::filesystem;

// The folder of the running executable, or "" when /proc is unavailable.
fs::path executable_folder() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self.parent_path();
}

// $|variable| when set and not empty; else |built| when it exists; else
// |relative| under the executable's parent folder when that exists; else
// |built| (so that the error names the path the build expected).
std::string pick_path(const char* variable, const char* built,
                      const char* relative) {
  const char* value = std::getenv(variable);
  if (value != nullptr && value[0] != '\0') return value;
  std::error_code error;
  if (fs::exists(built, error)) return built;
  const fs::path folder = executable_folder();
  if (!folder.empty()) {
    const fs::path moved = folder.parent_path() / relative;
    if (fs::exists(moved, error)) return moved.string();
  }
  return built;
}

}  // namespace

bool load_settings(Settings* out, std::string* error) {
  out->manifest = pick_path("HALO_BENCH_VULKAN_MANIFEST",
                            HALO_BENCH_VULKAN_MANIFEST,
                            "share/halo/plugins.d/vulkan.json");
  out->kernel = pick_path("HALO_BENCH_VULKAN_KERNEL", HALO_BENCH_VULKAN_KERNEL,
                          "share/halo/bench/empty.spirv");
  const char* external = std::getenv("HALO_BENCH_RAW_EXTERNAL");
  out->raw_external_extensions =
      external != nullptr && std::string(external) == "1";
  out->device_index = 0;
  const char* device = std::getenv("HALO_BENCH_DEVICE");
  if (device == nullptr || device[0] == '\0') return true;
  char* end = nullptr;
  errno = 0;
  const unsigned long long index = std::strtoull(device, &end, 10);
  if (errno != 0 || *end != '\0' || device[0] == '-') {
    *error = std::string("HALO_BENCH_DEVICE='") + device +
             "' is not a device index (0, 1, ...)";
    return false;
  }
  out->device_index = static_cast<size_t>(index);
  return true;
}

bool read_spirv(const std::string& path, std::vector<uint32_t>* out,
                std::string* error) {
  std::ifstream stream(path, std::ios::binary | std::ios::ate);
  if (!stream) {
    *error = "cannot open " + path;
    return false;
  }
  const std::streamoff size = stream.tellg();
  if (size <= 0 || size % 4 != 0) {
    *error = path + " is not a SPIR-V module (its size is not a positive "
                    "multiple of 4 bytes)";
    return false;
  }
  out->resize(static_cast<size_t>(size) / 4);
  stream.seekg(0);
  stream.read(reinterpret_cast<char*>(out->data()), size);
  if (!stream) {
    *error = "cannot read " + path;
    return false;
  }
  return true;
}

}  // namespace halo::bench
