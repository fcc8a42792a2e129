// The vulkan driver: one VkInstance and the physical devices it offers.
#ifndef HALO_VULKAN_DRIVER_HPP_
#define HALO_VULKAN_DRIVER_HPP_

#include <cstddef>

#include "adapter.hpp"
#include "halo/driver.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "validation.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

// The plugin's version, reported by the descriptor and the driver.
inline constexpr char kVersion[] = "0.1.0";

// A driver object; the header comes first so handle and object share an
// address. A driver always exists, even without Vulkan: it then offers no
// devices and its description says why.
struct Driver {
  halo_object_t header;
  sdk::Host host;
  Library library;
  VkInstance instance = VK_NULL_HANDLE;
  InstanceFunctions vki;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  MessengerContext messenger_context;
  // The usable physical devices; device ids are their indices.
  Adapter* adapters = nullptr;
  size_t adapter_count = 0;
  char description[256] = {};

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_driver_vtable_t kVtable;

  explicit Driver(sdk::Host host) noexcept;
  ~Driver();

  // Creates the driver (the descriptor's create_driver): opens the Vulkan
  // loader, creates the instance and describes the devices. Returns a new
  // reference in |out_driver| (libhalo passes a non-NULL one); only
  // RESOURCE_EXHAUSTED when host memory runs out — a missing loader or
  // device is a driver with no devices.
  static halo_status_t create(const halo_host_interface_t* host,
                              halo_driver_t** out_driver) noexcept;

  static Driver* cast(halo_driver_t* driver) noexcept {
    return sdk::object_cast<Driver>(driver);
  }
  halo_driver_t* handle() noexcept {
    return reinterpret_cast<halo_driver_t*>(this);
  }

 private:
  void start() noexcept;
  bool create_instance(char* why, size_t capacity) noexcept;
  void enumerate(char* why, size_t capacity) noexcept;
  ValidationSetup validation_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_DRIVER_HPP_
