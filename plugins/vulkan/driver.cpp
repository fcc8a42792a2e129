// The vulkan driver: the instance, device enumeration and the driver vtable.
#include "driver.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "device.hpp"
#include "exit_guard.hpp"
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
  Driver* driver = reinterpret_cast<Driver*>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  Driver* self = Driver::cast(driver);
  if (out_info == nullptr || out_info->struct_size < sizeof(uint32_t)) {
    return self->host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                       "out_info is NULL or too small");
  }
  halo_driver_info_t info = {};
  std::snprintf(info.name, sizeof(info.name), "vulkan");
  std::snprintf(info.version, sizeof(info.version), "%s", kVersion);
  std::snprintf(info.description, sizeof(info.description), "%s",
                self->description);
  uint32_t size = std::min<uint32_t>(out_info->struct_size, sizeof(info));
  std::memcpy(out_info, &info, size);
  out_info->struct_size = size;
  return HALO_OK;
}

halo_status_t enumerate_devices(halo_driver_t* driver, size_t capacity,
                                size_t info_stride,
                                halo_device_info_t* out_infos,
                                size_t* out_count) {
  Driver* self = Driver::cast(driver);
  if (out_count == nullptr) {
    return self->host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                       "out_count is NULL");
  }
  *out_count = self->adapter_count;
  if (capacity == 0 || out_infos == nullptr) return HALO_OK;
  if (info_stride < sizeof(uint32_t)) {
    return self->host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                  "info_stride %zu is too small", info_stride);
  }
  size_t size = std::min(info_stride, sizeof(halo_device_info_t));
  auto* bytes = reinterpret_cast<unsigned char*>(out_infos);
  for (size_t i = 0; i < std::min(capacity, self->adapter_count); ++i) {
    auto* out = reinterpret_cast<halo_device_info_t*>(bytes + i * info_stride);
    std::memcpy(out, &self->adapters[i].info, size);
    out->struct_size = static_cast<uint32_t>(size);
  }
  return HALO_OK;
}

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t*,
                            halo_device_t** out_device) {
  Driver* self = Driver::cast(driver);
  if (out_device == nullptr) {
    return self->host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                       "out_device is NULL");
  }
  *out_device = nullptr;
  if (device_id >= self->adapter_count) {
    return self->host.make_status(
        HALO_STATUS_NOT_FOUND, "the vulkan driver has no device with id %llu",
        static_cast<unsigned long long>(device_id));
  }
  return Device::create(self, &self->adapters[device_id], out_device);
}

const halo_driver_vtable_t kDriverVtable = {
    {sizeof(halo_driver_vtable_t), HALO_OBJECT_TYPE_DRIVER, &destroy_driver},
    &query_info,
    &enumerate_devices,
    &create_device,
};

}  // namespace

Driver::Driver(sdk::Host host) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kDriverVtable)), host(host) {
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
  if (out_driver == nullptr) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "out_driver is NULL");
  }
  *out_driver = nullptr;
  return sdk::guard(host, [&] {
    Driver* driver = host.make<Driver>(host);
    driver->start();
    *out_driver = driver->handle();
  });
}

}  // namespace halo::vk
