// The halo side: the cuda plugin opened through the public API only, as an
// application would (registry → driver → device).
#ifndef HALO_BENCH_CUDA_HALO_CUDA_HPP_
#define HALO_BENCH_CUDA_HALO_CUDA_HPP_

#include <string>

#include "halo/halo.h"
#include "settings.hpp"

namespace halo::bench {

class HaloCuda {
 public:
  HaloCuda() = default;
  // Releases the device, the driver and the registry, in that order.
  ~HaloCuda();
  HaloCuda(const HaloCuda&) = delete;
  HaloCuda& operator=(const HaloCuda&) = delete;

  // Opens the plugin named by |settings|.manifest, and nothing else (no
  // default folders, no environment), and creates its device
  // |settings|.device_index. Returns false and fills |error| when the
  // plugin, the device or a feature the benchmarks need is missing (with
  // the reasons the registry recorded for skipped plugins, and the driver's
  // own description when it has no devices). Call once.
  bool open(const Settings& settings, std::string* error);

  // The device (borrowed); valid after a successful open.
  halo_device_t* device() const { return device_; }
  // What halo_driver_query_device_info reported for the device: its UUID
  // is how the raw side finds the same CUdevice.
  const halo_device_info_t& info() const { return info_; }

 private:
  bool find_driver(const Settings& settings, std::string* error);
  bool create_device(const Settings& settings, std::string* error);
  void append_skip_reasons(std::string* error) const;

  halo_registry_t* registry_ = nullptr;
  halo_driver_t* driver_ = nullptr;
  halo_device_t* device_ = nullptr;
  halo_device_info_t info_ = {};
};

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_HALO_CUDA_HPP_
