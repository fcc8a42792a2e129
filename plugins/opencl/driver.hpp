// The opencl driver: every device of every OpenCL platform, and one shared
// cl_context per device, made when the first halo device needs it.
#ifndef HALO_OPENCL_DRIVER_HPP_
#define HALO_OPENCL_DRIVER_HPP_

#include <mutex>

#include "cl_library.hpp"
#include "device_description.hpp"
#include "halo/driver.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cl {

// The plugin's version, reported by the descriptor, driver and device.
inline constexpr char kVersion[] = "0.1.0";

// The context every halo device of one OpenCL device shares, so that their
// semaphores chain on each other's events and their buffers mix.
struct SharedContext {
  cl_context context = nullptr;
  // A user event completed at creation: the wait list of commands that wait
  // for nothing (an empty list would make a marker wait for everything
  // enqueued before it).
  cl_event complete_event = nullptr;
};

// A driver object; the header comes first so handle and object share an
// address.
struct Driver {
  halo_object_t header;
  sdk::Host host;
  // NULL when OpenCL could not be loaded (no devices then).
  const Api* api;
  // The enumerated devices; |device_id| is the index. Immutable.
  DeviceDescription* devices = nullptr;
  size_t device_count = 0;
  // What query_info reports: the platforms, or why there are no devices.
  char description[256] = {};

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_driver_vtable_t kVtable;

  Driver(sdk::Host host, const Api* api) noexcept;
  ~Driver();

  // Creates the driver (the descriptor's create_driver): loads OpenCL and
  // enumerates. Never fails for a missing OpenCL: the driver then has no
  // devices and its description says why. Returns a new reference in
  // |out_driver| (libhalo passes a non-NULL one); RESOURCE_EXHAUSTED when
  // memory runs out.
  static halo_status_t create(const halo_host_interface_t* host,
                              halo_driver_t** out_driver) noexcept;

  // Returns in |*out| the shared context of device |index| (< device_count),
  // creating it on first use. The driver owns it until destroyed. Returns the
  // creating call's status on failure. Thread-safe.
  halo_status_t shared_context(size_t index, SharedContext* out) noexcept;

  static Driver* cast(halo_driver_t* driver) noexcept {
    return sdk::object_cast<Driver>(driver);
  }
  halo_driver_t* handle() noexcept {
    return reinterpret_cast<halo_driver_t*>(this);
  }

 private:
  // Guards contexts_ (created lazily).
  std::mutex mutex_;
  SharedContext* contexts_ = nullptr;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_DRIVER_HPP_
