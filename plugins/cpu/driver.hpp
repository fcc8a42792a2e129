// The cpu driver: the host, offering exactly one device.
#ifndef HALO_CPU_DRIVER_HPP_
#define HALO_CPU_DRIVER_HPP_

#include "halo/driver.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cpu {

// The plugin's version, reported by the descriptor, driver and device.
inline constexpr char kVersion[] = "0.1.0";

// A driver object; the header comes first so handle and object share an
// address.
struct Driver {
  halo_object_t header;
  sdk::Host host;
  // The one device, described once at creation.
  halo_device_info_t device_info;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_driver_vtable_t kVtable;

  Driver(sdk::Host host, const halo_device_info_t& device_info) noexcept;

  // Creates the driver (the descriptor's create_driver). Returns a new
  // reference in |out_driver| (libhalo passes a non-NULL one). Thread-safe.
  static halo_status_t create(const halo_host_interface_t* host,
                              halo_driver_t** out_driver) noexcept;

  static Driver* cast(halo_driver_t* driver) noexcept {
    return sdk::object_cast<Driver>(driver);
  }
  halo_driver_t* handle() noexcept {
    return reinterpret_cast<halo_driver_t*>(this);
  }
};

}  // namespace halo::cpu

#endif  // HALO_CPU_DRIVER_HPP_
