// What halo-bench-vulkan runs on: the plugin manifest, the kernel file and
// the device, each with a compiled-in default that the environment
// overrides, so that the binary also runs from another folder or machine.
#ifndef HALO_BENCH_VULKAN_SETTINGS_HPP_
#define HALO_BENCH_VULKAN_SETTINGS_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace halo::bench {

struct Settings {
  // The vulkan plugin's manifest: $HALO_BENCH_VULKAN_MANIFEST, else this
  // build's share/halo/plugins.d/vulkan.json, else the same path relative to
  // the executable (bin/../share/...) when the build tree was moved.
  std::string manifest;
  // The empty kernel's SPIR-V: $HALO_BENCH_VULKAN_KERNEL, else this build's
  // share/halo/bench/empty.spirv, else that path relative to the executable.
  std::string kernel;
  // The index of the device among the vulkan driver's devices:
  // $HALO_BENCH_DEVICE, default 0.
  size_t device_index = 0;
  // Whether the raw device enables the external memory and semaphore
  // extensions the plugin enables on its device, where offered:
  // $HALO_BENCH_RAW_EXTERNAL=1. Off by default, as a plain application's
  // device would be; on, it shows what enabling them costs the driver.
  bool raw_external_extensions = false;
};

// Reads the environment once. Returns false and fills |error| when
// HALO_BENCH_DEVICE is not a non-negative integer.
bool load_settings(Settings* out, std::string* error);

// Reads the SPIR-V module at |path| as 32-bit words (what
// vkCreateShaderModule takes, aligned). Returns false and fills |error| when
// the file cannot be read or its size is not a whole number of words.
bool read_spirv(const std::string& path, std::vector<uint32_t>* out,
                std::string* error);

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_SETTINGS_HPP_
