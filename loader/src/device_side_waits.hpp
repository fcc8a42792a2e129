// Device-side waits across plugins (external.h, ABI 1.5).
//
// A submission of device D waiting on semaphore S of another plugin is
// normally released by the host, through a timepoint on S. When D reports
// HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS and S's device exports S in a
// type D imports for device waits, libhalo imports S into D
// once per (S, D) pair, and names the import instead of S in the submissions
// whose wait S's plugin reports committed (signal_committed): D's queue then
// waits on the device, and no host thread stands between the two devices.
//
// The imports live in a table of libhalo's (import_table.hpp), forgotten
// when S is destroyed (release_object, before S's destroy) and before each
// public release of D.
#pragma once

#include <cstddef>
#include <vector>

#include "halo/device.h"
#include "halo/object.h"
#include "halo/semaphore.h"

namespace halo::loader {

// The wait list one halo_device_queue_execute hands its plugin.
class DeviceSideWaits {
 public:
  DeviceSideWaits() = default;
  DeviceSideWaits(const DeviceSideWaits&) = delete;
  DeviceSideWaits& operator=(const DeviceSideWaits&) = delete;
  // Lets go of the imports it named.
  ~DeviceSideWaits();

  // Returns |info| itself when no wait of it can be taken on |device|
  // through an import, else a copy of |info| (valid while this object
  // lives) whose wait list names those imports instead. Both checked.
  // Throws std::bad_alloc.
  const halo_queue_execute_info_t* apply(halo_device_t* device,
                                         const halo_queue_execute_info_t* info);

 private:
  halo_queue_execute_info_t info_ = {};
  std::vector<halo_semaphore_t*> waits_;
  // Retained for the call, so that a concurrent forget cannot free them.
  std::vector<halo_semaphore_t*> imports_;
};

// Notes a device just created: once one reports
// HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS, libhalo looks for device-side
// waits in submissions; until then a submission pays one load for them.
void note_created_device(halo_device_t* device) noexcept;

// True once a device of this process reported the feature.
bool automatic_device_waits_seen() noexcept;

// True when |semaphore| (checked) is an import for device waits only: its
// own device says DEVICE_WAIT alone of it (semaphore.h). libhalo answers
// for such a semaphore where its plugin's entries cannot (fail returns
// nothing; another device's compatibility).
bool for_device_waits_only(halo_semaphore_t* semaphore) noexcept;

// True when |device| can wait on |semaphore| (another plugin's, checked)
// through an import libhalo makes (which this makes, once, if it can).
bool device_side_wait_possible(halo_device_t* device,
                               halo_semaphore_t* semaphore) noexcept;

// Drops the imports made of |semaphore|, whose last reference is gone
// (release_object, before its destroy).
void forget_imports_of_semaphore(halo_object_t* semaphore) noexcept;

// Drops the imports made into |device| (before each public release of a
// device: halo_device_release, halo_object_release).
void forget_imports_into_device(halo_device_t* device) noexcept;

}  // namespace halo::loader
