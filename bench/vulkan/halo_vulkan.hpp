// The halo side: the vulkan plugin opened through the public API only
// (registry → driver → device), like any application would.
//
// The registry and the driver stay open for the whole process; each halo
// benchmark run makes its own device (HaloDeviceScope) and lets it go when
// it ends. The device runs the plugin's notification thread, and keeping it
// alive only while halo is measured keeps whatever that thread does when
// idle out of the raw side's figures (see bench/README.md).
#ifndef HALO_BENCH_VULKAN_HALO_VULKAN_HPP_
#define HALO_BENCH_VULKAN_HALO_VULKAN_HPP_

#include <string>

#include "halo/halo.h"
#include "settings.hpp"

namespace halo::bench {

// Loads exactly the plugin of |settings.manifest| (no default folders, no
// environment), finds its "vulkan" driver and device number
// |settings.device_index|, and creates that device once to prove it can.
// Returns false and fills |error| when the plugin, the driver or the device
// is not available. Call once, before any benchmark runs.
bool open_halo_driver(const Settings& settings, std::string* error);

// Releases the driver and the registry. Accepts being called when
// open_halo_driver failed.
void close_halo_driver();

// Returns the benchmark device's info as the driver reported it (name,
// UUID, ...).
const halo_device_info_t& halo_device_info();

// Owns a device made from the driver opened by open_halo_driver. Make it
// before pinning the thread: the plugin's threads inherit its affinity.
class HaloDeviceScope {
 public:
  HaloDeviceScope();
  ~HaloDeviceScope();
  HaloDeviceScope(const HaloDeviceScope&) = delete;
  HaloDeviceScope& operator=(const HaloDeviceScope&) = delete;

  halo_device_t* get() const { return device_; }

 private:
  halo_device_t* device_ = nullptr;
};

// Prints the failed call |what| and the status, then aborts. Benchmarks are
// not tests: an unexpected status is a broken setup, and work left in flight
// could not be unwound cleanly anyway.
[[noreturn]] void die_halo(const char* what, halo_status_t status);

// Aborts through die_halo() when |status| is not OK.
inline void check_halo(halo_status_t status, const char* what) {
  if (status != HALO_OK) [[unlikely]] {
    die_halo(what, status);
  }
}

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_HALO_VULKAN_HPP_
