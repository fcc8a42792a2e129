// The opencl device: a cl_device_id in the driver's shared context, with an
// execution queue (out-of-order where the device allows) and an in-order
// queue for mapping buffers.
#ifndef HALO_OPENCL_DEVICE_HPP_
#define HALO_OPENCL_DEVICE_HPP_

#include "cl_library.hpp"
#include "device_description.hpp"
#include "driver.hpp"
#include "event_list.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"

namespace halo::cl {

class Queue;

// A device object; the header comes first so handle and object share an
// address.
struct Device {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The driver, retained: it owns |description| and the shared context.
  Driver* driver;
  const DeviceDescription* description;
  SharedContext shared;
  // Runs submissions; out-of-order when description->out_of_order.
  cl_command_queue cl_queue = nullptr;
  // In-order and private to buffer mapping, which may block on it.
  cl_command_queue cl_map_queue = nullptr;
  // Four bytes that join commands fill (see join).
  cl_mem scratch = nullptr;
  // The halo queue: submission bookkeeping and the completion worker.
  Queue* queue = nullptr;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_device_vtable_t kVtable;

  Device(Driver* driver, size_t index) noexcept;
  ~Device();

  // Creates halo device |index| of |driver| (retained). Returns a new
  // reference in |out_device|, or the failing OpenCL call's status.
  static halo_status_t create(Driver* driver, size_t index,
                              halo_device_t** out_device) noexcept;

  // Returns the device when |device| is an opencl device, else NULL.
  static Device* from(halo_device_t* device) noexcept {
    return sdk::object_from<Device>(device);
  }
  static Device* cast(halo_device_t* device) noexcept {
    return sdk::object_cast<Device>(device);
  }
  halo_device_t* handle() noexcept {
    return reinterpret_cast<halo_device_t*>(this);
  }
  cl_context context() const noexcept { return shared.context; }
  const halo_device_capabilities_t& capabilities() const noexcept {
    return description->capabilities;
  }

  // Stores in |*out| a reference to an event that completes once every
  // event of |deps| has: the one event itself (its reference moved out of
  // |deps|, which is then empty: no retain and release per submission,
  // unless |deps| borrowed it), the
  // context's complete event for an empty list, else a four-byte fill of
  // |scratch| waiting on the list. Not a marker: some implementations
  // (PoCL 3) make a marker wait for every command enqueued before it, and a
  // barrier holds back every command enqueued after it, either of which
  // would order submissions that only semaphores may order. Never blocks.
  halo_status_t join(EventList* deps, cl_event* out) const noexcept;

 private:
  halo_status_t create_queues() noexcept;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_DEVICE_HPP_
