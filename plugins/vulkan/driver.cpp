// The vulkan driver: the instance, device enumeration and the driver vtable.
#include "driver.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "device.hpp"
#include "exit_guard.hpp"
#include "halo/sdk/versioned.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

// Most physical devices the driver looks at; more is unheard of.
constexpr uint32_t kMaxPhysicalDevices = 16;

// Appends a printf-style text to the NUL-terminated |out| of |capacity|.
void append(char* out, size_t capacity, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
void append(char* out, size_t capacity, const char* format, ...) {
  size_t used = std::strlen(out);
  if (used + 1 >= capacity) return;
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(out + used, capacity - used, format, arguments);
  va_end(arguments);
}

void destroy_driver(halo_object_t* object) {
  Driver* driver = sdk::object_cast<Driver>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  Driver* self = Driver::cast(driver);
  return sdk::copy_driver_info(self->host, "vulkan", kVersion,
                               self->description, out_info);
}

halo_status_t enumerate_devices(halo_driver_t* driver, size_t capacity,
                                size_t info_stride,
                                halo_device_info_t* out_infos,
                                size_t* out_count) {
  Driver* self = Driver::cast(driver);
  sdk::enumerate_device_infos(
      self->adapter_count,
      [&](size_t i) -> const halo_device_info_t& {
        return self->adapters[i].info;
      },
      capacity, info_stride, out_infos, out_count);
  return HALO_OK;
}

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t*,
                            halo_device_t** out_device) {
  Driver* self = Driver::cast(driver);
  if (device_id >= self->adapter_count) {
    return self->host.make_status(
        HALO_STATUS_NOT_FOUND,
        "halo_driver_create_device: device_id %llu is not a device of the "
        "vulkan driver",
        static_cast<unsigned long long>(device_id));
  }
  return Device::create(self, &self->adapters[device_id], out_device);
}

}  // namespace

const halo_driver_vtable_t Driver::kVtable = {
    .object = {.struct_size = sizeof(halo_driver_vtable_t),
               .type = HALO_OBJECT_TYPE_DRIVER,
               .destroy = &destroy_driver},
    .query_info = &query_info,
    .enumerate_devices = &enumerate_devices,
    .create_device = &create_device,
};

Driver::Driver(sdk::Host host) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)), host(host) {
  messenger_context.host = host;
}

Driver::~Driver() {
  if (messenger != VK_NULL_HANDLE) {
    vki.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
  }
  if (instance != VK_NULL_HANDLE) vki.vkDestroyInstance(instance, nullptr);
  host.deallocate(adapters);
}

bool Driver::create_instance(char* why, size_t capacity) noexcept {
  const char* name = secure_getenv("HALO_VULKAN_LIBRARY");
  if (name == nullptr || name[0] == '\0') name = "libvulkan.so.1";
  ErrorText error;
  if (!library.open(name, &error)) {
    std::snprintf(why, capacity, "%s", error.text);
    return false;
  }
  uint32_t loader_version = 0;
  library.vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    std::snprintf(why, capacity, "the Vulkan loader is %u.%u; 1.2 is needed",
                  VK_API_VERSION_MAJOR(loader_version),
                  VK_API_VERSION_MINOR(loader_version));
    return false;
  }
  ValidationMode mode = validation_mode_from_environment();
  messenger_context.fatal = mode == ValidationMode::kFatal;
  const void* chain = validation_.prepare(library, mode, &messenger_context);
  VkApplicationInfo application = {};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "halo";
  application.pEngineName = "halo";
  application.apiVersion = loader_version >= VK_API_VERSION_1_3
                               ? VK_API_VERSION_1_3
                               : VK_API_VERSION_1_2;
  VkInstanceCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create_info.pNext = chain;
  create_info.pApplicationInfo = &application;
  create_info.enabledLayerCount = validation_.layer_count;
  create_info.ppEnabledLayerNames = validation_.layers;
  create_info.enabledExtensionCount = validation_.extension_count;
  create_info.ppEnabledExtensionNames = validation_.extensions;
  LoadedLibraries libraries;
  libraries.snapshot();
  VkResult result = library.vkCreateInstance(&create_info, nullptr, &instance);
  libraries.pin_new();
  if (result != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    std::snprintf(why, capacity, "vkCreateInstance failed: %s (%d)",
                  result_name(result), static_cast<int>(result));
    return false;
  }
  install_exit_guard();
  if (!vki.load(library, instance, &error)) {
    std::snprintf(why, capacity, "%s", error.text);
    return false;
  }
  if (validation_.debug_utils && vki.vkCreateDebugUtilsMessengerEXT) {
    // The same settings as the copy chained into the instance, without
    // that chain.
    VkDebugUtilsMessengerCreateInfoEXT messenger_info =
        validation_.messenger_info;
    messenger_info.pNext = nullptr;
    result = vki.vkCreateDebugUtilsMessengerEXT(instance, &messenger_info,
                                                nullptr, &messenger);
    if (result != VK_SUCCESS) messenger = VK_NULL_HANDLE;
  }
  std::snprintf(description, sizeof(description), "Vulkan %u.%u.%u loader",
                VK_API_VERSION_MAJOR(loader_version),
                VK_API_VERSION_MINOR(loader_version),
                VK_API_VERSION_PATCH(loader_version));
  return true;
}

void Driver::enumerate(char* why, size_t capacity) noexcept {
  VkPhysicalDevice physical_devices[kMaxPhysicalDevices];
  uint32_t count = kMaxPhysicalDevices;
  VkResult result =
      vki.vkEnumeratePhysicalDevices(instance, &count, physical_devices);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    std::snprintf(why, capacity, "vkEnumeratePhysicalDevices failed: %s (%d)",
                  result_name(result), static_cast<int>(result));
    return;
  }
  if (count == 0) {
    std::snprintf(why, capacity, "the Vulkan loader found no physical device");
    return;
  }
  adapters = static_cast<Adapter*>(
      host.allocate(sizeof(Adapter) * count, alignof(Adapter)));
  if (adapters == nullptr) {
    std::snprintf(why, capacity, "out of host memory");
    return;
  }
  char skipped[256] = {};
  uint32_t skipped_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    Adapter* adapter = ::new (&adapters[adapter_count]) Adapter();
    char reason[160] = {};
    if (describe_adapter(vki, physical_devices[i], adapter_count,
                         validation_.layer_count > 0, adapter, reason,
                         sizeof(reason))) {
      ++adapter_count;
    } else {
      append(skipped, sizeof(skipped), "%s%s", skipped_count ? ", " : "",
             reason);
      ++skipped_count;
      host.log(HALO_LOG_LEVEL_INFO, "Vulkan device skipped: %s", reason);
    }
  }
  if (adapter_count == 0) {
    std::snprintf(why, capacity, "%u device%s skipped: %s", skipped_count,
                  skipped_count == 1 ? "" : "s", skipped);
    return;
  }
  append(description, sizeof(description), "; %zu device%s", adapter_count,
         adapter_count == 1 ? "" : "s");
  if (skipped_count != 0) {
    append(description, sizeof(description), "; %u device%s skipped: %s",
           skipped_count, skipped_count == 1 ? "" : "s", skipped);
  }
}

void Driver::start() noexcept {
  char why[200] = {};
  if (create_instance(why, sizeof(why))) enumerate(why, sizeof(why));
  if (adapter_count == 0) {
    std::snprintf(description, sizeof(description), "no Vulkan devices: %s",
                  why);
    host.log(HALO_LOG_LEVEL_INFO, "%s", description);
  }
  if (validation_.note[0] != '\0') {
    append(description, sizeof(description), "; %s", validation_.note);
  }
}

halo_status_t Driver::create(const halo_host_interface_t* host_interface,
                             halo_driver_t** out_driver) noexcept {
  sdk::Host host(host_interface);
  return sdk::guard(host, [&] {
    Driver* driver = host.make<Driver>(host);
    driver->start();
    *out_driver = driver->handle();
  });
}

}  // namespace halo::vk
