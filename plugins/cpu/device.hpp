// The cpu device: the host CPU, one queue served by one worker thread, and
// a pool of worker threads that share each dispatch's workgroups with it.
#ifndef HALO_CPU_DEVICE_HPP_
#define HALO_CPU_DEVICE_HPP_

#include "halo/device.h"
#include "halo/driver.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cpu {

class Queue;
class WorkerPool;

// A device object; the header comes first so handle and object share an
// address.
struct Device {
  halo_object_t header;
  sdk::Host host;
  // The driver, retained: a device keeps its plugin's driver alive.
  halo_driver_t* driver;
  halo_device_info_t info;
  // What the device offers, decided once at creation.
  halo_device_capabilities_t capabilities;
  WorkerPool* pool = nullptr;
  Queue* queue = nullptr;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_device_vtable_t kVtable;

  Device(sdk::Host host, halo_driver_t* driver,
         const halo_device_info_t& info) noexcept;
  ~Device();

  // Creates the device described by |info| for |driver| (borrowed; retained)
  // and starts its worker pool (HALO_CPU_WORKERS threads, see WorkerPool)
  // and its queue's worker. Returns a new reference in |out_device|, or
  // RESOURCE_EXHAUSTED / INTERNAL when memory or a thread is lacking.
  static halo_status_t create(sdk::Host host, halo_driver_t* driver,
                              const halo_device_info_t& info,
                              halo_device_t** out_device) noexcept;

  static Device* cast(halo_device_t* device) noexcept {
    return sdk::object_cast<Device>(device);
  }
  halo_device_t* handle() noexcept {
    return reinterpret_cast<halo_device_t*>(this);
  }
};

}  // namespace halo::cpu

#endif  // HALO_CPU_DEVICE_HPP_
