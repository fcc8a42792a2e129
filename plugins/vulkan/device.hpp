// The vulkan device: a VkDevice with one compute queue, the device's wake
// semaphore and its queue.
#ifndef HALO_VULKAN_DEVICE_HPP_
#define HALO_VULKAN_DEVICE_HPP_

#include "adapter.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "semaphore_keeper.hpp"
#include "vulkan_api.hpp"
#include "wake.hpp"

namespace halo::vk {

struct Driver;
class Queue;

// A device object; the header comes first so handle and object share an
// address. Everything that uses the VkDevice (semaphores, buffers, command
// buffers, executables, submissions) holds a reference to the device.
struct Device {
  halo_object_t header;
  sdk::Host host;
  // Retained: the instance must outlive the device.
  Driver* driver;
  // Owned by the driver.
  const Adapter* adapter;
  DeviceFunctions vkd;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue vk_queue = VK_NULL_HANDLE;
  Wake wake;
  Queue* queue = nullptr;
  // The queue, as its semaphores see it (set by the queue).
  SemaphoreKeeper* semaphore_keeper = nullptr;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_device_vtable_t kVtable;

  Device(sdk::Host host, Driver* driver, const Adapter* adapter) noexcept;
  ~Device();

  // Creates a device on |adapter| of |driver| (retained). Returns a new
  // reference in |out_device|, or the failed Vulkan call's status.
  static halo_status_t create(Driver* driver, const Adapter* adapter,
                              halo_device_t** out_device) noexcept;

  // Returns true when |semaphore| (any plugin's) is a semaphore of this
  // very device, so the device can wait on and signal it natively.
  bool owns(halo_semaphore_t* semaphore) const noexcept;

  static Device* cast(halo_device_t* device) noexcept {
    return sdk::object_cast<Device>(device);
  }
  halo_device_t* handle() noexcept {
    return reinterpret_cast<halo_device_t*>(this);
  }
  void retain() noexcept { host.retain(&header); }
  void release() noexcept { host.release(&header); }

 private:
  halo_status_t start() noexcept;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_DEVICE_HPP_
