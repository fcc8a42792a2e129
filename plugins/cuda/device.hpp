// The cuda device: a CUDA device's primary context (shared with any CUDA
// runtime code in the process, as the runtime expects), one stream that
// runs its submissions in order, and the halo queue around that stream.
#ifndef HALO_CUDA_DEVICE_HPP_
#define HALO_CUDA_DEVICE_HPP_

#include "cuda_library.hpp"
#include "driver.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "host_registrations.hpp"

namespace halo::cuda {

class Queue;

// A device object; the header comes first so handle and object share an
// address.
struct Device {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The driver, retained: it owns |description|.
  Driver* driver;
  const DeviceDescription* description;
  // The primary context, retained for the device's life.
  CUcontext context = nullptr;
  // Every submission's work, in issue order.
  CUstream stream = nullptr;
  // The halo queue: submission bookkeeping and the completion worker.
  Queue* queue = nullptr;
  // The host memory its imported buffers registered.
  HostRegistrations host_registrations;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_device_vtable_t kVtable;

  Device(Driver* driver, size_t index) noexcept;
  ~Device();

  // Creates halo device |index| of |driver| (retained). Returns a new
  // reference in |out_device|, or the failing CUDA call's status.
  static halo_status_t create(Driver* driver, size_t index,
                              halo_device_t** out_device) noexcept;

  // Returns the device when |device| is a cuda device, else NULL.
  static Device* from(halo_device_t* device) noexcept {
    return sdk::object_from<Device>(device);
  }
  static Device* cast(halo_device_t* device) noexcept {
    return sdk::object_cast<Device>(device);
  }
  halo_device_t* handle() noexcept {
    return reinterpret_cast<halo_device_t*>(this);
  }
  const halo_device_capabilities_t& capabilities() const noexcept {
    return description->capabilities;
  }
};

// Makes |context| current on the calling thread for the scope and restores
// the caller's own current context after: the plugin is called on threads
// the application owns, which may use CUDA themselves.
class ContextScope {
 public:
  ContextScope(const Api& api, CUcontext context) noexcept : api_(api) {
    pushed_ = api_.cuCtxPushCurrent(context) == CUDA_SUCCESS;
  }
  ~ContextScope() {
    CUcontext popped = nullptr;
    if (pushed_) api_.cuCtxPopCurrent(&popped);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const Api& api_;
  bool pushed_ = false;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_DEVICE_HPP_
