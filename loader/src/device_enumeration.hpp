// Device enumeration in the deterministic order of DESIGN.md §6.
#pragma once

#include <cstddef>
#include <vector>

#include "halo/driver.h"

namespace halo::loader {

// The most devices libhalo accepts from one driver: far beyond any machine,
// far below a count whose list would exhaust memory. A plugin reporting more
// is broken, and is refused instead of trusted.
inline constexpr size_t kMaxDevicesPerDriver = 65536;

// Asks |driver| (checked) for its device count. Returns the plugin's status,
// or INTERNAL "|function|: plugin '<name>' reports N devices, more than …"
// for a count above kMaxDevicesPerDriver.
halo_status_t count_devices(halo_driver_t* driver, const char* function,
                            size_t* out_count);

// Takes one snapshot of |driver|'s devices, ordered by type (discrete GPU
// first, CPU last) and then name. |function| names the public call in
// progress in the statuses libhalo makes. Throws std::bad_alloc.
halo_status_t enumerate_sorted_devices(halo_driver_t* driver,
                                       const char* function,
                                       std::vector<halo_device_info_t>* out);

// The rank of a device type in that order (smaller first).
int device_type_rank(uint32_t type);

}  // namespace halo::loader
