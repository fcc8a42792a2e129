// Reading the settings from the environment (see settings.hpp).
#include "settings.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>

#ifndef HALO_BENCH_CUDA_MANIFEST
#error "HALO_BENCH_CUDA_MANIFEST must name the cuda plugin's manifest"
#endif
#ifndef HALO_BENCH_CUDA_KERNEL
#error "HALO_BENCH_CUDA_KERNEL must name the empty kernel's PTX"
#endif

namespace halo::bench {
namespace {

// Returns the environment variable |name|, or |fallback| when it is unset
// or empty.
std::string from_environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : fallback;
}

}  // namespace

bool read_settings(Settings* out, std::string* error) {
  out->manifest =
      from_environment("HALO_BENCH_CUDA_MANIFEST", HALO_BENCH_CUDA_MANIFEST);
  out->kernel = from_environment("HALO_BENCH_CUDA_KERNEL", HALO_BENCH_CUDA_KERNEL);
  const std::string index = from_environment("HALO_BENCH_DEVICE", "0");
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(index.c_str(), &end, 10);
  if (errno != 0 || end == index.c_str() || *end != '\0' || index[0] == '-') {
    *error = "HALO_BENCH_DEVICE='" + index + "' is not a device index";
    return false;
  }
  out->device_index = static_cast<size_t>(value);
  return true;
}

bool read_file(const std::string& path, std::string* out, std::string* error) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    *error = "cannot open " + path;
    return false;
  }
  out->assign(std::istreambuf_iterator<char>(stream),
              std::istreambuf_iterator<char>());
  if (stream.bad()) {
    *error = "cannot read " + path;
    return false;
  }
  return true;
}

}  // namespace halo::bench
