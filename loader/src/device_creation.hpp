// Creating a device of a driver: shared by halo_driver_create_device and
// halo_registry_create_device, so both check alike and name their own call.
#pragma once

#include "halo/driver.h"

namespace halo::loader {

// Checks |params| (NULL for defaults) and |out_device|, asks |driver|
// (checked) for device |device_id| and checks the device the plugin hands
// over (plugin_objects.hpp). Statuses libhalo makes name |function|.
halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t* params,
                            halo_device_t** out_device, const char* function);

}  // namespace halo::loader
