// The cuda driver: every CUDA device the driver API enumerates, each with
// its primary context (retained when the first halo device needs it).
#ifndef HALO_CUDA_DRIVER_HPP_
#define HALO_CUDA_DRIVER_HPP_

#include <cstdint>

#include "cuda_library.hpp"
#include "halo/device.h"
#include "halo/driver.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cuda {

// The plugin's version, reported by the descriptor, driver and device.
inline constexpr char kVersion[] = "0.1.0";

// The executable format the plugin takes: PTX text (see executable.hpp).
inline constexpr char kFormatPtx[] = "ptx";

// What enumeration learned of one CUDA device. Immutable.
struct DeviceDescription {
  CUdevice device = 0;
  halo_device_info_t info = {};
  // Its grid limits too (max_workgroup_count), which dispatches check.
  halo_device_capabilities_t capabilities = {};
};

// A driver object; the header comes first so handle and object share an
// address.
struct Driver {
  halo_object_t header;
  sdk::Host host;
  // NULL when CUDA could not be loaded or initialised (no devices then).
  const Api* api;
  DeviceDescription* devices = nullptr;
  size_t device_count = 0;
  // What query_info reports: the driver version, or why there are no
  // devices.
  char description[320] = {};

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_driver_vtable_t kVtable;

  Driver(sdk::Host host, const Api* api) noexcept;
  ~Driver();

  // Creates the driver (the descriptor's create_driver): loads CUDA and
  // enumerates. Never fails for a missing driver or device: the driver then
  // has no devices and its description says why. Returns a new reference
  // in |out_driver|; RESOURCE_EXHAUSTED when memory runs out.
  static halo_status_t create(const halo_host_interface_t* host,
                              halo_driver_t** out_driver) noexcept;

  static Driver* cast(halo_driver_t* driver) noexcept {
    return sdk::object_cast<Driver>(driver);
  }
  halo_driver_t* handle() noexcept {
    return reinterpret_cast<halo_driver_t*>(this);
  }
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_DRIVER_HPP_
