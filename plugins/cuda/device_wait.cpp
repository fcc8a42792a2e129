// The cuda semaphore for device waits only (see device_wait.hpp).
#include "device_wait.hpp"

#include <unistd.h>

#include "cuda_status.hpp"
#include "device.hpp"
#include "halo/sdk/external.hpp"
#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::cuda {

DeviceWaitSemaphore::DeviceWaitSemaphore(Device* device) noexcept
    : header(HALO_OBJECT_HEADER_INIT(
          &sdk::kSemaphoreVtable<DeviceWaitSemaphore>)),
      host(device->host),
      device(device) {
  host.retain(sdk::as_object(device->handle()));
}

DeviceWaitSemaphore::~DeviceWaitSemaphore() {
  if (external != nullptr) {
    // Only submissions that waited on it, all completed, used it.
    ContextScope scope(*device->api, device->context);
    device->api->cuDestroyExternalSemaphore(external);
  }
  host.release(sdk::as_object(device->handle()));
}

halo_status_t DeviceWaitSemaphore::import(
    Device* device, const halo_external_handle_t& handle,
    halo_semaphore_t** out_semaphore) noexcept {
  static const char kFunction[] = "halo_semaphore_import";
  sdk::Host host = device->host;
  return HALO_SDK_TRY(host, {
    DeviceWaitSemaphore* semaphore = host.make<DeviceWaitSemaphore>(device);
    // CUDA takes the fd only when the import succeeds: import a copy, so
    // that the caller's fd stays open until the whole import succeeded.
    sdk::OwnedFd fd;
    halo_status_t status =
        sdk::duplicate_fd(host, kFunction, handle.fd, &fd);
    if (status == HALO_OK) {
      CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC description = {};
      description.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
      description.handle.fd = fd.get();
      const Api& api = *device->api;
      ContextScope scope(api, device->context);
      status = host.annotate(
          cuda_status(host, api, "cuImportExternalSemaphore",
                      api.cuImportExternalSemaphore(&semaphore->external,
                                                    &description)),
          kFunction);
      if (status == HALO_OK) fd.release();  // CUDA owns the copy now.
    }
    if (status != HALO_OK) {
      host.destroy(semaphore);
      return status;
    }
    close(handle.fd);
    *out_semaphore = semaphore->handle();
    return HALO_OK;
  });
}

DeviceWaitSemaphore* DeviceWaitSemaphore::from(
    halo_semaphore_t* semaphore) noexcept {
  return sdk::is_semaphore_of<DeviceWaitSemaphore>(semaphore)
             ? cast(semaphore)
             : nullptr;
}

halo_status_t DeviceWaitSemaphore::enqueue_wait(CUstream stream,
                                                uint64_t value) noexcept {
  CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params = {};
  params.params.fence.value = value;
  const Api& api = *device->api;
  return cuda_status(host, api, "cuWaitExternalSemaphoresAsync",
                     api.cuWaitExternalSemaphoresAsync(&external, &params, 1,
                                                       stream));
}

halo_status_t DeviceWaitSemaphore::host_use(const char* function) noexcept {
  return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                          "%s: the semaphore was imported for device waits "
                          "only (HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY): "
                          "the host cannot read or change its payload",
                          function);
}

halo_status_t DeviceWaitSemaphore::query(uint64_t* out_value) noexcept {
  *out_value = 0;
  return host_use("halo_semaphore_query");
}

halo_status_t DeviceWaitSemaphore::signal(uint64_t) noexcept {
  return host_use("halo_semaphore_signal");
}

void DeviceWaitSemaphore::fail(halo_status_t status) noexcept {
  host.free(status);  // Nothing on the host can carry it.
}

halo_status_t DeviceWaitSemaphore::wait(uint64_t, halo_time_ns_t) noexcept {
  return host_use("halo_semaphore_wait");
}

halo_status_t DeviceWaitSemaphore::acquire_timepoint(
    halo_timepoint_t*) noexcept {
  return host_use("halo_semaphore_acquire_timepoint");
}

bool DeviceWaitSemaphore::cancel_timepoint(halo_timepoint_t*) noexcept {
  return false;  // None is ever registered.
}

halo_status_t DeviceWaitSemaphore::export_handle(
    halo_external_handle_type_t, halo_external_handle_t*) noexcept {
  return host_use("halo_semaphore_export");
}

}  // namespace halo::cuda
