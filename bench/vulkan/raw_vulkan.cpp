// The raw side's instance and device on the halo device's physical device.
#include "raw_vulkan.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "raw_validation.hpp"

namespace halo::bench {
namespace {

RawDevice g_raw;
RawValidation g_validation;

std::string call_failed(const char* what, VkResult result) {
  return std::string(what) + " failed: " + vk_result_name(result);
}

// The same API version the plugin asks for: 1.3 where the loader has it,
// else 1.2.
bool create_instance(std::string* error) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  vkEnumerateInstanceVersion(&loader_version);
  if (loader_version < VK_API_VERSION_1_2) {
    char text[64];
    std::snprintf(text, sizeof(text),
                  "the Vulkan loader is %u.%u; 1.2 is needed",
                  VK_API_VERSION_MAJOR(loader_version),
                  VK_API_VERSION_MINOR(loader_version));
    *error = text;
    return false;
  }
  g_validation.prepare();
  VkApplicationInfo application = {};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "halo-bench-vulkan";
  application.apiVersion = loader_version >= VK_API_VERSION_1_3
                               ? VK_API_VERSION_1_3
                               : VK_API_VERSION_1_2;
  VkInstanceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = g_validation.instance_chain();
  info.pApplicationInfo = &application;
  info.enabledLayerCount = g_validation.layer_count();
  info.ppEnabledLayerNames = g_validation.layers();
  info.enabledExtensionCount = g_validation.extension_count();
  info.ppEnabledExtensionNames = g_validation.extensions();
  VkResult result = vkCreateInstance(&info, nullptr, &g_raw.instance);
  if (result != VK_SUCCESS) {
    g_raw.instance = VK_NULL_HANDLE;
    *error = call_failed("vkCreateInstance", result);
    return false;
  }
  g_validation.start(g_raw.instance);
  return true;
}

// Finds the physical device whose deviceUUID is |uuid| (Vulkan 1.2 ones
// only: the plugin offers no other).
bool find_physical_device(const uint8_t (&uuid)[16], std::string* error) {
  uint32_t count = 0;
  VkResult result = vkEnumeratePhysicalDevices(g_raw.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (result == VK_SUCCESS) {
    result = vkEnumeratePhysicalDevices(g_raw.instance, &count, devices.data());
  }
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    *error = call_failed("vkEnumeratePhysicalDevices", result);
    return false;
  }
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceIDProperties id = {};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties = {};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &id;
    vkGetPhysicalDeviceProperties2(device, &properties);
    if (properties.properties.apiVersion < VK_API_VERSION_1_2) continue;
    if (std::memcmp(id.deviceUUID, uuid, VK_UUID_SIZE) != 0) continue;
    g_raw.physical_device = device;
    g_raw.name = properties.properties.deviceName;
    return true;
  }
  *error = "no Vulkan 1.2 physical device has the halo device's UUID among " +
           std::to_string(count);
  return false;
}

// The plugin's rule: a compute family, preferring one without graphics (a
// dedicated compute queue), so that both sides submit to the same kind of
// hardware queue.
bool pick_compute_family(std::string* error) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(g_raw.physical_device, &count,
                                           nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(g_raw.physical_device, &count,
                                           families.data());
  bool found = false;
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0) continue;
    const bool dedicated =
        (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) == 0;
    if (!found || dedicated) g_raw.queue_family = i;
    found = true;
    if (dedicated) break;
  }
  if (!found) *error = g_raw.name + " has no compute queue family";
  return found;
}

// Keeps those of the plugin's external memory and semaphore extensions
// (plugins/vulkan/external_support.cpp) the device offers, in
// g_raw.extensions.
bool pick_external_extensions(std::string* error) {
  uint32_t count = 0;
  VkResult result = vkEnumerateDeviceExtensionProperties(
      g_raw.physical_device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> offered(count);
  if (result == VK_SUCCESS) {
    result = vkEnumerateDeviceExtensionProperties(
        g_raw.physical_device, nullptr, &count, offered.data());
  }
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    *error = call_failed("vkEnumerateDeviceExtensionProperties", result);
    return false;
  }
  for (const char* name : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                           VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
                           VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME}) {
    for (const VkExtensionProperties& extension : offered) {
      if (std::strcmp(extension.extensionName, name) == 0) {
        g_raw.extensions.push_back(name);
      }
    }
  }
  return true;
}

bool create_device(std::string* error) {
  VkPhysicalDeviceVulkan12Features supported = {};
  supported.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &supported;
  vkGetPhysicalDeviceFeatures2(g_raw.physical_device, &features);
  if (!supported.timelineSemaphore) {
    *error = g_raw.name + " lacks timeline semaphores";
    return false;
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = g_raw.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features enabled = {};
  enabled.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  enabled.timelineSemaphore = VK_TRUE;
  VkDeviceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.pNext = &enabled;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = static_cast<uint32_t>(g_raw.extensions.size());
  info.ppEnabledExtensionNames = g_raw.extensions.data();
  VkResult result =
      vkCreateDevice(g_raw.physical_device, &info, nullptr, &g_raw.device);
  if (result != VK_SUCCESS) {
    g_raw.device = VK_NULL_HANDLE;
    *error = call_failed("vkCreateDevice", result);
    return false;
  }
  return true;
}

bool load_device_functions(std::string* error) {
  RawDeviceFunctions& vk = g_raw.vk;
#define HALO_BENCH_RAW_LOAD_(name)                                  \
  vk.name = reinterpret_cast<PFN_##name>(                           \
      vkGetDeviceProcAddr(g_raw.device, #name));                    \
  if (vk.name == nullptr) {                                         \
    *error = "vkGetDeviceProcAddr found no " #name;                 \
    return false;                                                   \
  }
  HALO_BENCH_RAW_DEVICE_FUNCTIONS(HALO_BENCH_RAW_LOAD_)
#undef HALO_BENCH_RAW_LOAD_
  return true;
}

// Creates the device and fetches its functions and queue into g_raw.
bool open_device(std::string* error) {
  if (!create_device(error)) return false;
  if (!load_device_functions(error)) {
    // vkDestroyDevice came from the loader's export, not the table.
    vkDestroyDevice(g_raw.device, nullptr);
    g_raw.device = VK_NULL_HANDLE;
    return false;
  }
  g_raw.vk.vkGetDeviceQueue(g_raw.device, g_raw.queue_family, 0, &g_raw.queue);
  return true;
}

// Waits for the device to idle and destroys it.
void close_device() {
  if (g_raw.device == VK_NULL_HANDLE) return;
  check_vk(g_raw.vk.vkDeviceWaitIdle(g_raw.device), "vkDeviceWaitIdle");
  g_raw.vk.vkDestroyDevice(g_raw.device, nullptr);
  g_raw.device = VK_NULL_HANDLE;
  g_raw.queue = VK_NULL_HANDLE;
  g_raw.vk = RawDeviceFunctions();
}

}  // namespace

bool open_raw_side(const uint8_t (&uuid)[16], bool external_extensions,
                   std::string* error) {
  if (!create_instance(error) || !find_physical_device(uuid, error) ||
      !pick_compute_family(error) ||
      (external_extensions && !pick_external_extensions(error)) ||
      !open_device(error)) {
    return false;
  }
  close_device();
  vkGetPhysicalDeviceMemoryProperties(g_raw.physical_device, &g_raw.memory);
  return true;
}

RawDeviceScope::RawDeviceScope() {
  std::string error;
  if (!open_device(&error)) {
    std::fprintf(stderr, "halo-bench-vulkan: %s\n", error.c_str());
    std::abort();
  }
}

RawDeviceScope::~RawDeviceScope() { close_device(); }

void close_raw_side() {
  if (g_raw.instance != VK_NULL_HANDLE) {
    g_validation.stop(g_raw.instance);
    vkDestroyInstance(g_raw.instance, nullptr);
    g_raw.instance = VK_NULL_HANDLE;
  }
}

const RawDevice& raw_device() { return g_raw; }

uint64_t raw_validation_messages() { return g_validation.message_count(); }

const char* vk_result_name(VkResult result) {
  switch (result) {
#define HALO_BENCH_VK_RESULT_(name) \
  case name:                        \
    return #name;
    HALO_BENCH_VK_RESULT_(VK_SUCCESS)
    HALO_BENCH_VK_RESULT_(VK_NOT_READY)
    HALO_BENCH_VK_RESULT_(VK_TIMEOUT)
    HALO_BENCH_VK_RESULT_(VK_INCOMPLETE)
    HALO_BENCH_VK_RESULT_(VK_ERROR_OUT_OF_HOST_MEMORY)
    HALO_BENCH_VK_RESULT_(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    HALO_BENCH_VK_RESULT_(VK_ERROR_INITIALIZATION_FAILED)
    HALO_BENCH_VK_RESULT_(VK_ERROR_DEVICE_LOST)
    HALO_BENCH_VK_RESULT_(VK_ERROR_LAYER_NOT_PRESENT)
    HALO_BENCH_VK_RESULT_(VK_ERROR_EXTENSION_NOT_PRESENT)
    HALO_BENCH_VK_RESULT_(VK_ERROR_FEATURE_NOT_PRESENT)
    HALO_BENCH_VK_RESULT_(VK_ERROR_INCOMPATIBLE_DRIVER)
    HALO_BENCH_VK_RESULT_(VK_ERROR_TOO_MANY_OBJECTS)
    HALO_BENCH_VK_RESULT_(VK_ERROR_UNKNOWN)
#undef HALO_BENCH_VK_RESULT_
    default:
      return "VkResult";
  }
}

void die_vk(const char* what, VkResult result) {
  std::fprintf(stderr, "halo-bench-vulkan: %s: %s (%d)\n", what,
               vk_result_name(result), static_cast<int>(result));
  std::fflush(stderr);
  std::abort();
}

}  // namespace halo::bench
