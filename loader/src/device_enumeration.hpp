// Device enumeration in the deterministic order of DESIGN.md §6.
#pragma once

#include <vector>

#include "halo/driver.h"

namespace halo::loader {

// Takes one snapshot of |driver|'s devices, ordered by type (discrete GPU
// first, CPU last) and then name.
halo_status_t enumerate_sorted_devices(halo_driver_t* driver,
                                       std::vector<halo_device_info_t>* out);

// The rank of a device type in that order (smaller first).
int device_type_rank(uint32_t type);

}  // namespace halo::loader
