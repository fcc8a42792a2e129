// The cpu device's vtable: info, capabilities, semaphores, the queue, and
// creation of buffers, command buffers and executables.
#include "device.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "buffer.hpp"
#include "command_buffer.hpp"
#include "executable.hpp"
#include "halo/cpu_kernel.h"
#include "halo/sdk/versioned.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "worker_pool.hpp"

namespace halo::cpu {
namespace {

// The host's physical memory: the device's only memory heap (2 GiB when
// the system does not say).
uint64_t physical_memory_size() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{2} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// Fills the dispatch limits of ABI 1.2. An entry point is a C function
// called once per workgroup, which decides itself how much work a call
// does, so nothing bounds a workgroup's size or a dimension's count; the
// product of the counts must fit the 64 bits it is counted in
// (command_buffer.cpp). Parameters are those of the kernel table
// (halo/cpu_kernel.h), each constant at most 8 bytes.
void describe_dispatch_limits(halo_device_capabilities_t& caps) {
  for (int d = 0; d < 3; ++d) {
    caps.max_workgroup_size[d] = UINT32_MAX;
    caps.max_workgroup_count[d] = UINT32_MAX;
  }
  caps.max_workgroup_invocations = UINT32_MAX;
  caps.max_workgroup_count_total = UINT64_MAX;
  caps.max_binding_count = HALO_CPU_MAX_PARAMETERS;
  caps.max_constant_size = HALO_CPU_MAX_PARAMETERS * sizeof(uint64_t);
}

halo_device_capabilities_t describe_capabilities() {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
                  HALO_DEVICE_FEATURE_BUFFERS |
                  HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                  HALO_DEVICE_FEATURE_DISPATCH;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  caps.device_memory_size = physical_memory_size();
  // Half of the physical memory: a buffer larger than that cannot be
  // useful, and refusing it up front (RESOURCE_EXHAUSTED from the shared
  // check) beats an allocation that thrashes or is killed later.
  caps.max_buffer_size = caps.device_memory_size / 2;
  caps.min_buffer_alignment = kMinBufferAlignment;
  caps.memory_types = kMemoryTypes;
  std::snprintf(caps.executable_formats, sizeof(caps.executable_formats), "%s",
                kExecutableFormat);
  describe_dispatch_limits(caps);
  // Host memory is what HOST_ALLOCATION names: a cpu buffer is exported as
  // its own memory and an application's memory imported as is.
  caps.buffer_export_types = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  caps.buffer_import_types = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  caps.host_allocation_alignment = kMinBufferAlignment;
  // Semaphores are host timelines, shared through a page of memory; an
  // import for device waits is a whole semaphore, which the queue waits on
  // as on its own.
  caps.semaphore_export_types = Semaphore::kShareTypes;
  caps.semaphore_import_types = Semaphore::kShareTypes;
  caps.semaphore_wait_import_types = Semaphore::kShareTypes;
  // Within one process a host hand-off is the quicker: the signalling thread
  // itself submits the waiting work, where a wait on an import is released
  // by the import's watcher thread, one wake-up later. So libhalo chooses
  // such waits for a cpu device only when HALO_CPU_AUTOMATIC_DEVICE_WAITS=1
  // asks for it.
  const char* automatic = secure_getenv("HALO_CPU_AUTOMATIC_DEVICE_WAITS");
  if (automatic != nullptr && std::strcmp(automatic, "1") == 0) {
    caps.features |= HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS;
  }
  return caps;
}

void destroy_device(halo_object_t* object) {
  Device* device = sdk::object_cast<Device>(object);
  sdk::Host host = device->host;
  host.destroy(device);
}

halo_status_t query_info(halo_device_t* device, halo_device_info_t* out_info) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->info, out_info,
                             "halo_device_query_info", "out_info");
}

halo_status_t query_capabilities(halo_device_t* device,
                                 halo_device_capabilities_t* out_caps) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->capabilities, out_caps,
                             "halo_device_query_capabilities",
                             "out_capabilities");
}

halo_status_t create_semaphore(halo_device_t* device, uint64_t initial_value,
                               halo_semaphore_flags_t flags,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::create(Device::cast(device)->host, device, initial_value,
                           out_semaphore, flags);
}

halo_status_t import_semaphore(halo_device_t* device,
                               const halo_external_handle_t* handle,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::import(Device::cast(device)->host, device, handle,
                           out_semaphore);
}

halo_semaphore_compatibility_t semaphore_compatibility(
    halo_device_t*, halo_semaphore_t* semaphore) {
  // Every cpu semaphore lives in host memory, so any cpu device can wait on
  // and signal any of them directly; foreign ones go through timepoints and
  // their own signal entry on the host.
  if (Semaphore::is(semaphore)) {
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

halo_status_t allocate_buffer(halo_device_t* device,
                              const halo_buffer_params_t* params,
                              halo_buffer_t** out_buffer) {
  Device* self = Device::cast(device);
  return Buffer::allocate(self->host, device, self->capabilities, *params,
                          out_buffer);
}

halo_status_t import_buffer(halo_device_t* device,
                            const halo_buffer_params_t* params,
                            const halo_external_handle_t* handle,
                            halo_buffer_t** out_buffer) {
  Device* self = Device::cast(device);
  return Buffer::import(self->host, device, self->capabilities, *params,
                        *handle, out_buffer);
}

halo_status_t create_command_buffer(halo_device_t* device,
                                    halo_command_buffer_mode_t mode,
                                    halo_command_buffer_t** out_command_buffer) {
  return CommandBuffer::create(Device::cast(device)->host, device, mode,
                               out_command_buffer);
}

halo_status_t create_executable(halo_device_t* device,
                                const halo_executable_params_t* params,
                                halo_executable_t** out_executable) {
  return Executable::create(Device::cast(device)->host, device, *params,
                            out_executable);
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

Device::Device(sdk::Host host, halo_driver_t* driver,
               const halo_device_info_t& info) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      driver(driver),
      info(info),
      capabilities(describe_capabilities()) {
  host.retain(sdk::as_object(driver));
}

Device::~Device() {
  // The queue first: its worker may still be running (it can even be this
  // very thread, dropping the device's last reference). The pool is idle
  // then: only the queue's worker gives it tasks.
  Queue::destroy(queue);
  WorkerPool::destroy(pool);
  host.release(sdk::as_object(driver));
}

halo_status_t Device::create(sdk::Host host, halo_driver_t* driver,
                             const halo_device_info_t& info,
                             halo_device_t** out_device) noexcept {
  return sdk::guard(host, [&] {
    Device* device = host.make<Device>(host, driver, info);
    try {
      // The info reports the pool's threads as the device's compute units.
      device->info.compute_units = WorkerPool::configured_thread_count(host);
      device->pool = WorkerPool::create(host, device->info.compute_units);
      device->queue = Queue::create(host, device->pool);
    } catch (...) {
      host.destroy(device);
      throw;
    }
    *out_device = device->handle();
  });
}

}  // namespace halo::cpu
