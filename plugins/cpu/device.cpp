// The cpu device's vtable: info, capabilities, semaphores and the queue.
#include "device.hpp"

#include <algorithm>
#include <cstring>

#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::cpu {
namespace {

// Copies the first min(|out|->struct_size, sizeof(T)) bytes of |full| into
// |out| and records that size, as the ABI's versioned structs ask.
template <class T>
halo_status_t copy_versioned(sdk::Host host, const T& full, T* out) {
  if (out == nullptr || out->struct_size < sizeof(uint32_t)) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "output struct is NULL or its struct_size "
                                 "is too small");
  }
  uint32_t size =
      std::min<uint32_t>(out->struct_size, static_cast<uint32_t>(sizeof(T)));
  std::memcpy(out, &full, size);
  out->struct_size = size;
  return HALO_OK;
}

void destroy_device(halo_object_t* object) {
  Device* device = reinterpret_cast<Device*>(object);
  sdk::Host host = device->host;
  host.destroy(device);
}

halo_status_t query_info(halo_device_t* device, halo_device_info_t* out_info) {
  Device* self = Device::cast(device);
  return copy_versioned(self->host, self->info, out_info);
}

halo_status_t query_capabilities(halo_device_t* device,
                                 halo_device_capabilities_t* out_caps) {
  Device* self = Device::cast(device);
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  // Command buffers, buffers and dispatch arrive in later issues.
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  caps.memory_types = 0;
  caps.executable_formats[0] = '\0';
  return copy_versioned(self->host, caps, out_caps);
}

halo_status_t create_semaphore(halo_device_t* device, uint64_t initial_value,
                               halo_semaphore_flags_t,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::create(Device::cast(device)->host, device, initial_value,
                           out_semaphore);
}

halo_semaphore_compatibility_t semaphore_compatibility(
    halo_device_t*, halo_semaphore_t* semaphore) {
  // Every cpu semaphore lives in host memory, so any cpu device can wait on
  // and signal any of them directly; foreign ones go through timepoints and
  // their own signal entry on the host.
  if (Semaphore::is_cpu_semaphore(semaphore)) {
    return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  }
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
         HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info) {
  return Device::cast(device)->queue->execute(device, info);
}

halo_status_t queue_flush(halo_device_t*, halo_queue_affinity_t) {
  return HALO_OK;  // Ready submissions are handed to the worker at once.
}

halo_status_t wait_semaphores(halo_device_t* device, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) {
  return cpu::wait_semaphores(Device::cast(device)->host, mode, count,
                              semaphores, values, deadline);
}

halo_status_t wait_idle(halo_device_t* device, halo_time_ns_t deadline) {
  return Device::cast(device)->queue->wait_idle(deadline);
}

const halo_device_vtable_t kDeviceVtable = {
    {sizeof(halo_device_vtable_t), HALO_OBJECT_TYPE_DEVICE, &destroy_device},
    &query_info,
    &query_capabilities,
    &create_semaphore,
    &semaphore_compatibility,
    &queue_execute,
    &queue_flush,
    &wait_semaphores,
    &wait_idle,
    // Buffers, command buffers and executables: not yet (libhalo returns
    // UNIMPLEMENTED for NULL entries).
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

Device::Device(sdk::Host host, halo_driver_t* driver,
               const halo_device_info_t& info) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kDeviceVtable)),
      host(host),
      driver(driver),
      info(info) {
  host.retain(sdk::as_object(driver));
}

Device::~Device() {
  // The queue first: its worker may still be running (it can even be this
  // very thread, dropping the device's last reference).
  Queue::destroy(queue);
  host.release(sdk::as_object(driver));
}

halo_status_t Device::create(sdk::Host host, halo_driver_t* driver,
                             const halo_device_info_t& info,
                             halo_device_t** out_device) noexcept {
  return sdk::guard(host, [&] {
    Device* device = host.make<Device>(host, driver, info);
    try {
      device->queue = Queue::create(host);
    } catch (...) {
      host.destroy(device);
      throw;
    }
    *out_device = device->handle();
  });
}

}  // namespace halo::cpu
