// The cuda device's vtable: info, capabilities, semaphores, the queue and
// the factories of buffers, command buffers and executables.
#include "device.hpp"

#include "buffer.hpp"
#include "command_buffer.hpp"
#include "cuda_status.hpp"
#include "device_wait.hpp"
#include "executable.hpp"
#include "halo/sdk/versioned.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::cuda {
namespace {

void destroy_device(halo_object_t* object) {
  Device* device = sdk::object_cast<Device>(object);
  sdk::Host host = device->host;
  host.destroy(device);
}

halo_status_t query_info(halo_device_t* device, halo_device_info_t* out_info) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->description->info, out_info,
                             "halo_device_query_info", "out_info");
}

halo_status_t query_capabilities(halo_device_t* device,
                                 halo_device_capabilities_t* out_caps) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->capabilities(), out_caps,
                             "halo_device_query_capabilities",
                             "out_capabilities");
}

halo_status_t create_semaphore(halo_device_t* device, uint64_t initial_value,
                               halo_semaphore_flags_t,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::create(Device::cast(device), initial_value,
                           out_semaphore);
}

halo_semaphore_compatibility_t semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore) {
  // The device's own semaphores are waited for on the device when issued
  // work of its stream will signal them (submission.hpp); every other one
  // is reached through timepoints and signalled from the host.
  Semaphore* own = Semaphore::from(semaphore);
  if (own != nullptr && own->device == Device::cast(device)) {
    return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  }
  // An import for device waits only is waited on by its own device's
  // stream, and by nothing else (device_wait.hpp).
  if (DeviceWaitSemaphore* import = DeviceWaitSemaphore::from(semaphore)) {
    return import->device == Device::cast(device)
               ? HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT
               : HALO_SEMAPHORE_COMPATIBILITY_NONE;
  }
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
         HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info) {
  Device* self = Device::cast(device);
  return self->queue->execute(self, *info);
}

// CUDA starts work as it is issued: nothing is held back to flush.
halo_status_t queue_flush(halo_device_t*, halo_queue_affinity_t) {
  return HALO_OK;
}

halo_status_t wait_semaphores(halo_device_t* device, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) {
  return cuda::wait_semaphores(Device::cast(device)->host, mode, count,
                               semaphores, values, deadline);
}

halo_status_t wait_idle(halo_device_t* device, halo_time_ns_t deadline) {
  return Device::cast(device)->queue->wait_idle(deadline);
}

halo_status_t allocate_buffer(halo_device_t* device,
                              const halo_buffer_params_t* params,
                              halo_buffer_t** out_buffer) {
  return Buffer::create(Device::cast(device), *params, out_buffer);
}

halo_status_t create_command_buffer(halo_device_t* device,
                                    halo_command_buffer_mode_t mode,
                                    halo_command_buffer_t** out) {
  return CommandBuffer::create(Device::cast(device), mode, out);
}

halo_status_t create_executable(halo_device_t* device,
                                const halo_executable_params_t* params,
                                halo_executable_t** out_executable) {
  return Executable::create(Device::cast(device), *params, out_executable);
}

// HOST_ALLOCATION or OPAQUE_FD (the capabilities name nothing else);
// libhalo has checked the handle against them.
halo_status_t import_buffer(halo_device_t* device,
                            const halo_buffer_params_t* params,
                            const halo_external_handle_t* handle,
                            halo_buffer_t** out_buffer) {
  return Buffer::import(Device::cast(device), *params, *handle, out_buffer);
}

// OPAQUE_FD for device waits only (the capabilities name nothing else, and
// libhalo has checked the handle against them).
halo_status_t import_semaphore(halo_device_t* device,
                               const halo_external_handle_t* handle,
                               halo_semaphore_t** out_semaphore) {
  return DeviceWaitSemaphore::import(Device::cast(device), *handle,
                                     out_semaphore);
}

}  // namespace

const halo_device_vtable_t Device::kVtable = {
    .object = {.struct_size = sizeof(halo_device_vtable_t),
               .type = HALO_OBJECT_TYPE_DEVICE,
               .destroy = &destroy_device},
    .query_info = &query_info,
    .query_capabilities = &query_capabilities,
    .create_semaphore = &create_semaphore,
    .semaphore_compatibility = &semaphore_compatibility,
    .queue_execute = &queue_execute,
    .queue_flush = &queue_flush,
    .wait_semaphores = &wait_semaphores,
    .wait_idle = &wait_idle,
    .allocate_buffer = &allocate_buffer,
    .create_command_buffer = &create_command_buffer,
    .create_executable = &create_executable,
    .import_buffer = &import_buffer,
    .import_semaphore = &import_semaphore,
};

Device::Device(Driver* driver, size_t index) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(driver->host),
      api(driver->api),
      driver(driver),
      description(&driver->devices[index]),
      host_registrations(driver->host) {
  host.retain(sdk::as_object(driver->handle()));
}

Device::~Device() {
  // The worker first: it may be this very thread, dropping the last
  // reference while it releases the last submission.
  Queue::destroy(queue);
  if (stream != nullptr) {
    ContextScope scope(*api, context);
    api->cuStreamSynchronize(stream);
    api->cuStreamDestroy(stream);
  }
  if (context != nullptr) api->cuDevicePrimaryCtxRelease(description->device);
  host.release(sdk::as_object(driver->handle()));
}

halo_status_t Device::create(Driver* driver, size_t index,
                             halo_device_t** out_device) noexcept {
  sdk::Host host = driver->host;
  const Api& api = *driver->api;
  return HALO_SDK_TRY(host, {
    Device* device = host.make<Device>(driver, index);
    halo_status_t status = cuda_status(
        host, api, "cuDevicePrimaryCtxRetain",
        api.cuDevicePrimaryCtxRetain(&device->context,
                                     device->description->device));
    if (status == HALO_OK) {
      ContextScope scope(api, device->context);
      // Non-blocking: the legacy default stream, which CUDA runtime code
      // in the process may use, must not order halo's work.
      status = cuda_status(
          host, api, "cuStreamCreate",
          api.cuStreamCreate(&device->stream, CU_STREAM_NON_BLOCKING));
    }
    if (status == HALO_OK) {
      status = sdk::guard(host, [&] { device->queue = Queue::create(device); });
    }
    if (status != HALO_OK) {
      host.destroy(device);
      return status;
    }
    *out_device = device->handle();
    return HALO_OK;
  });
}

}  // namespace halo::cuda
