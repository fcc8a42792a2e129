// The vulkan device: VkDevice creation and the device vtable.
#include "device.hpp"

#include "buffer.hpp"
#include "command_buffer.hpp"
#include "driver.hpp"
#include "executable.hpp"
#include "halo/sdk/versioned.hpp"
#include "queue.hpp"
#include "semaphore.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

void destroy_device(halo_object_t* object) {
  Device* device = sdk::object_cast<Device>(object);
  sdk::Host host = device->host;
  host.destroy(device);
}

halo_status_t query_info(halo_device_t* device, halo_device_info_t* out_info) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->adapter->info, out_info,
                             "halo_device_query_info", "out_info");
}

halo_status_t query_capabilities(halo_device_t* device,
                                 halo_device_capabilities_t* out_caps) {
  Device* self = Device::cast(device);
  return sdk::copy_versioned(self->host, self->adapter->capabilities,
                             out_caps, "halo_device_query_capabilities",
                             "out_capabilities");
}

halo_status_t create_semaphore(halo_device_t* device, uint64_t initial_value,
                               halo_semaphore_flags_t flags,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::create(Device::cast(device), initial_value, flags,
                           out_semaphore);
}

halo_semaphore_compatibility_t semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore) {
  // Only this device's own timeline semaphores are known to its queue;
  // anything else is waited on through timepoints and signalled from the
  // host.
  if (Device::cast(device)->owns(semaphore)) {
    return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  }
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
         HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info) {
  return Device::cast(device)->queue->execute(info);
}

halo_status_t queue_flush(halo_device_t*, halo_queue_affinity_t) {
  return HALO_OK;  // Ready submissions reach vkQueueSubmit at once.
}

halo_status_t wait_semaphores(halo_device_t* device, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) {
  return vk::wait_semaphores(Device::cast(device), mode, count, semaphores,
                             values, deadline);
}

halo_status_t wait_idle(halo_device_t* device, halo_time_ns_t deadline) {
  return Device::cast(device)->queue->wait_idle(deadline);
}

halo_status_t allocate_buffer(halo_device_t* device,
                              const halo_buffer_params_t* params,
                              halo_buffer_t** out_buffer) {
  return Buffer::create(Device::cast(device), *params, out_buffer);
}

halo_status_t import_buffer(halo_device_t* device,
                            const halo_buffer_params_t* params,
                            const halo_external_handle_t* handle,
                            halo_buffer_t** out_buffer) {
  return Buffer::import(Device::cast(device), *params, *handle, out_buffer);
}

halo_status_t import_semaphore(halo_device_t* device,
                               const halo_external_handle_t* handle,
                               halo_semaphore_t** out_semaphore) {
  return Semaphore::import(Device::cast(device), *handle, out_semaphore);
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
    .import_buffer = &import_buffer,
    .import_semaphore = &import_semaphore,
};

Device::Device(sdk::Host host, Driver* driver, const Adapter* adapter) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      driver(driver),
      adapter(adapter) {
  host.retain(&driver->header);
}

Device::~Device() {
  // The queue first: its thread may still be running (it can even be this
  // very thread, dropping the device's last reference).
  Queue::destroy(queue);
  if (device != VK_NULL_HANDLE) {
    vkd.vkDeviceWaitIdle(device);
    wake.destroy();
    vkd.vkDestroyDevice(device, nullptr);
  }
  host.release(&driver->header);
}

halo_status_t Device::start() noexcept {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = adapter->queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features features12 = {};
  features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  features12.timelineSemaphore = VK_TRUE;
  // External memory and semaphores are core since 1.1; their fd and host
  // pointer extensions are enabled wherever offered, so that every device
  // can export and import what its capabilities report.
  const char* extensions[kMaxExternalExtensions];
  VkDeviceCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create_info.pNext = &features12;
  create_info.queueCreateInfoCount = 1;
  create_info.pQueueCreateInfos = &queue_info;
  create_info.enabledExtensionCount =
      external_extensions(adapter->external, extensions);
  create_info.ppEnabledExtensionNames = extensions;
  VkResult result = driver->vki.vkCreateDevice(
      adapter->physical_device, &create_info, nullptr, &device);
  if (result != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    return vk_status(host, "vkCreateDevice", result);
  }
  ErrorText error;
  if (!vkd.load(driver->vki, device, &error)) {
    // The table loads in order, vkDestroyDevice first: destroy the device
    // when at least that entry is there.
    VkDevice lost = device;
    device = VK_NULL_HANDLE;
    if (vkd.vkDestroyDevice != nullptr) vkd.vkDestroyDevice(lost, nullptr);
    return host.make_status(HALO_STATUS_UNAVAILABLE, "%s", error.text);
  }
  vkd.vkGetDeviceQueue(device, adapter->queue_family, 0, &vk_queue);
  HALO_SDK_RETURN_IF_ERROR(wake.create(host, &vkd, device));
  halo_status_t status = HALO_OK;
  queue = Queue::create(this, &status);
  return status;
}

halo_status_t Device::create(Driver* driver, const Adapter* adapter,
                             halo_device_t** out_device) noexcept {
  sdk::Host host = driver->host;
  return sdk::guard(host, [&]() -> halo_status_t {
    Device* device = host.make<Device>(host, driver, adapter);
    halo_status_t status = sdk::guard(host, [&] { return device->start(); });
    if (status != HALO_OK) {
      host.destroy(device);
      return status;
    }
    *out_device = device->handle();
    return HALO_OK;
  });
}

bool Device::owns(halo_semaphore_t* semaphore) const noexcept {
  return Semaphore::is_vulkan(semaphore) &&
         Semaphore::cast(semaphore)->device == this;
}

}  // namespace halo::vk
