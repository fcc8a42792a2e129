// The opencl device's vtable: info, capabilities, semaphores, the queue and
// the factories of buffers (allocated and imported), command buffers and
// executables.
#include "device.hpp"

#include "buffer.hpp"
#include "cl_status.hpp"
#include "command_buffer.hpp"
#include "executable.hpp"
#include "halo/sdk/versioned.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::cl {
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
  Device* self = Device::cast(device);
  return Semaphore::create(self->host, self->api, device, self->context(),
                           initial_value, out_semaphore);
}

halo_semaphore_compatibility_t semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore) {
  // Semaphores of the same context chain on each other's events on the
  // device; every other one is reached through timepoints and user events,
  // and signalled from the host.
  Semaphore* own = Semaphore::from(semaphore);
  if (own != nullptr && own->context == Device::cast(device)->context()) {
    return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  }
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
         HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info) {
  Device* self = Device::cast(device);
  return self->queue->execute(self, info);
}

halo_status_t queue_flush(halo_device_t* device, halo_queue_affinity_t) {
  Device* self = Device::cast(device);
  return cl_status(self->host, "clFlush", self->api->clFlush(self->cl_queue));
}

halo_status_t wait_semaphores(halo_device_t* device, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) {
  return cl::wait_semaphores(Device::cast(device)->host, mode, count,
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

// HOST_ALLOCATION only, where the capabilities offer it (see
// device_description.cpp); libhalo has checked the handle against them.
halo_status_t import_buffer(halo_device_t* device,
                            const halo_buffer_params_t* params,
                            const halo_external_handle_t* handle,
                            halo_buffer_t** out_buffer) {
  return Buffer::import(Device::cast(device), *params, *handle, out_buffer);
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
    // ABI 1.3: no semaphore is imported (semaphore_import_types is 0).
    .import_buffer = &import_buffer,
    .import_semaphore = nullptr,
};

Device::Device(Driver* driver, size_t index) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(driver->host),
      api(driver->api),
      driver(driver),
      description(&driver->devices[index]) {
  host.retain(sdk::as_object(driver->handle()));
}

Device::~Device() {
  // The worker first: it may be this very thread, dropping the last
  // reference while it releases the last submission.
  Queue::destroy(queue);
  if (cl_queue != nullptr) {
    // Every submission is released, but a failed gate's commands may still
    // be winding down inside the implementation.
    api->clFinish(cl_queue);
    api->clReleaseCommandQueue(cl_queue);
  }
  if (cl_map_queue != nullptr) api->clReleaseCommandQueue(cl_map_queue);
  if (scratch != nullptr) api->clReleaseMemObject(scratch);
  host.release(sdk::as_object(driver->handle()));
}

halo_status_t Device::create_queues() noexcept {
  cl_int code = CL_SUCCESS;
  scratch = api->clCreateBuffer(context(), CL_MEM_READ_WRITE, sizeof(cl_uint),
                                nullptr, &code);
  HALO_CL_RETURN_IF_ERROR(host, "clCreateBuffer", code);
  const cl_device_id id = description->device;
  const bool with_properties =
      description->at_least(2, 0) &&
      api->clCreateCommandQueueWithProperties != nullptr;
  cl_command_queue_properties properties =
      description->out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0;
  if (with_properties) {
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
    cl_queue =
        api->clCreateCommandQueueWithProperties(context(), id, list, &code);
    HALO_CL_RETURN_IF_ERROR(host, "clCreateCommandQueueWithProperties", code);
    cl_map_queue =
        api->clCreateCommandQueueWithProperties(context(), id, nullptr, &code);
    HALO_CL_RETURN_IF_ERROR(host, "clCreateCommandQueueWithProperties", code);
    return HALO_OK;
  }
  cl_queue = api->clCreateCommandQueue(context(), id, properties, &code);
  HALO_CL_RETURN_IF_ERROR(host, "clCreateCommandQueue", code);
  cl_map_queue = api->clCreateCommandQueue(context(), id, 0, &code);
  HALO_CL_RETURN_IF_ERROR(host, "clCreateCommandQueue", code);
  return HALO_OK;
}

halo_status_t Device::create(Driver* driver, size_t index,
                             halo_device_t** out_device) noexcept {
  sdk::Host host = driver->host;
  SharedContext shared;
  HALO_SDK_RETURN_IF_ERROR(driver->shared_context(index, &shared));
  return sdk::guard(host, [&]() -> halo_status_t {
    Device* device = host.make<Device>(driver, index);
    device->shared = shared;
    halo_status_t status = device->create_queues();
    if (status == HALO_OK) {
      status = sdk::guard(host, [&] {
        device->queue =
            Queue::create(host, device->api,
                          device->description->completion_poll);
      });
    }
    if (status != HALO_OK) {
      host.destroy(device);
      return status;
    }
    *out_device = device->handle();
    return HALO_OK;
  });
}

halo_status_t Device::join(EventList* deps, cl_event* out) const noexcept {
  if (deps->size() == 1) {
    return cl_status(host, "clRetainEvent", deps->take_only(out));
  }
  if (deps->empty()) {
    cl_event event = shared.complete_event;
    HALO_CL_RETURN_IF_ERROR(host, "clRetainEvent", api->clRetainEvent(event));
    *out = event;
    return HALO_OK;
  }
  const cl_uint zero = 0;
  return cl_status(host, "clEnqueueFillBuffer",
                   api->clEnqueueFillBuffer(cl_queue, scratch, &zero,
                                            sizeof(zero), 0, sizeof(zero),
                                            deps->size(), deps->data(), out));
}

}  // namespace halo::cl
