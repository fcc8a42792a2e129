// Where halo-bench-cuda finds the plugin, the kernel and its device: the
// build tree's files by default, overridable from the environment so that
// the binary also runs from another folder or machine.
#ifndef HALO_BENCH_CUDA_SETTINGS_HPP_
#define HALO_BENCH_CUDA_SETTINGS_HPP_

#include <cstddef>
#include <string>

namespace halo::bench {

struct Settings {
  // The cuda plugin's manifest: HALO_BENCH_CUDA_MANIFEST, else the build
  // tree's share/halo/plugins.d/cuda.json.
  std::string manifest;
  // The empty kernel's PTX: HALO_BENCH_CUDA_KERNEL, else the build tree's
  // share/halo/cts/testdata/kernels/empty.ptx.
  std::string kernel;
  // The index of the device among the cuda driver's devices (in
  // halo_driver_query_device_info's order): HALO_BENCH_DEVICE, else 0.
  size_t device_index = 0;
};

// Reads the settings from the environment. Returns false and fills |error|
// when HALO_BENCH_DEVICE is not a decimal index.
bool read_settings(Settings* out, std::string* error);

// Reads the whole file at |path| into |out|. Returns false and fills
// |error| when it cannot be read.
bool read_file(const std::string& path, std::string* out, std::string* error);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_SETTINGS_HPP_
