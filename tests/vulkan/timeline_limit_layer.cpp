// A Vulkan layer for the tests: it reports a lower
// maxTimelineSemaphoreValueDifference than the driver beneath it, and
// passes every other call through. Lavapipe reports no limit at all
// (UINT64_MAX), so without this layer the plugin's enforcement of the limit
// could not be exercised. The value it reports, HALO_TEST_TIMELINE_LIMIT_VALUE,
// is the smallest the Vulkan specification allows (2^31 - 1), so a plugin
// that honours it works on every conformant device.
//
// The layer keeps the next layer's entry points per instance and per
// device, keyed by the loader's dispatch table pointer (the first word of
// every dispatchable handle, shared by an instance and its physical
// devices).
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <map>
#include <mutex>

namespace {

constexpr uint64_t kLimit = HALO_TEST_TIMELINE_LIMIT_VALUE;

struct InstanceEntries {
  VkInstance instance = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  PFN_vkDestroyInstance destroy_instance = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 get_properties2 = nullptr;
  PFN_vkGetPhysicalDeviceProperties2 get_properties2_khr = nullptr;
};

struct DeviceEntries {
  PFN_vkGetDeviceProcAddr get_device_proc_addr = nullptr;
  PFN_vkDestroyDevice destroy_device = nullptr;
};

std::mutex g_mutex;
std::map<void*, InstanceEntries> g_instances;
std::map<void*, DeviceEntries> g_devices;

void* dispatch_key(const void* handle) {
  return *static_cast<void* const*>(handle);
}

InstanceEntries instance_entries(const void* handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto found = g_instances.find(dispatch_key(handle));
  return found != g_instances.end() ? found->second : InstanceEntries{};
}

DeviceEntries device_entries(const void* handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto found = g_devices.find(dispatch_key(handle));
  return found != g_devices.end() ? found->second : DeviceEntries{};
}

// Finds the loader's link information in a create-info chain.
template <class Info>
Info* find_link(const void* chain, VkStructureType type) {
  for (auto* node = static_cast<const VkBaseInStructure*>(chain);
       node != nullptr; node = node->pNext) {
    if (node->sType != type) continue;
    auto* info = reinterpret_cast<Info*>(const_cast<VkBaseInStructure*>(node));
    if (info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

// Lowers the limit wherever the driver reported it.
void lower_limit(VkPhysicalDeviceProperties2* properties) {
  for (auto* node = static_cast<VkBaseOutStructure*>(properties->pNext);
       node != nullptr; node = node->pNext) {
    if (node->sType ==
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES) {
      auto* v12 = reinterpret_cast<VkPhysicalDeviceVulkan12Properties*>(node);
      if (v12->maxTimelineSemaphoreValueDifference > kLimit) {
        v12->maxTimelineSemaphoreValueDifference = kLimit;
      }
    } else if (
        node->sType ==
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES) {
      auto* timeline =
          reinterpret_cast<VkPhysicalDeviceTimelineSemaphoreProperties*>(node);
      if (timeline->maxTimelineSemaphoreValueDifference > kLimit) {
        timeline->maxTimelineSemaphoreValueDifference = kLimit;
      }
    }
  }
}

VKAPI_ATTR void VKAPI_CALL get_properties2(
    VkPhysicalDevice physical_device, VkPhysicalDeviceProperties2* properties) {
  const InstanceEntries entries = instance_entries(physical_device);
  if (entries.get_properties2 == nullptr) return;
  entries.get_properties2(physical_device, properties);
  lower_limit(properties);
}

VKAPI_ATTR void VKAPI_CALL get_properties2_khr(
    VkPhysicalDevice physical_device, VkPhysicalDeviceProperties2* properties) {
  const InstanceEntries entries = instance_entries(physical_device);
  if (entries.get_properties2_khr == nullptr) return;
  entries.get_properties2_khr(physical_device, properties);
  lower_limit(properties);
}

VKAPI_ATTR VkResult VKAPI_CALL create_instance(
    const VkInstanceCreateInfo* create_info,
    const VkAllocationCallbacks* allocator, VkInstance* out_instance) {
  auto* link = find_link<VkLayerInstanceCreateInfo>(
      create_info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  PFN_vkGetInstanceProcAddr next =
      link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  // The next layer finds its own link.
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(
      next(VK_NULL_HANDLE, "vkCreateInstance"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = create(create_info, allocator, out_instance);
  if (result != VK_SUCCESS) return result;
  InstanceEntries entries;
  entries.instance = *out_instance;
  entries.get_instance_proc_addr = next;
  entries.destroy_instance = reinterpret_cast<PFN_vkDestroyInstance>(
      next(*out_instance, "vkDestroyInstance"));
  entries.get_properties2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
          next(*out_instance, "vkGetPhysicalDeviceProperties2"));
  entries.get_properties2_khr =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
          next(*out_instance, "vkGetPhysicalDeviceProperties2KHR"));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances[dispatch_key(*out_instance)] = entries;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
destroy_instance(VkInstance instance, const VkAllocationCallbacks* allocator) {
  if (instance == VK_NULL_HANDLE) return;
  const InstanceEntries entries = instance_entries(instance);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_instances.erase(dispatch_key(instance));
  }
  if (entries.destroy_instance != nullptr) {
    entries.destroy_instance(instance, allocator);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL create_device(
    VkPhysicalDevice physical_device, const VkDeviceCreateInfo* create_info,
    const VkAllocationCallbacks* allocator, VkDevice* out_device) {
  auto* link = find_link<VkLayerDeviceCreateInfo>(
      create_info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  PFN_vkGetInstanceProcAddr next_instance =
      link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_device =
      link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  const InstanceEntries instance = instance_entries(physical_device);
  auto create = reinterpret_cast<PFN_vkCreateDevice>(
      next_instance(instance.instance, "vkCreateDevice"));
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = create(physical_device, create_info, allocator, out_device);
  if (result != VK_SUCCESS) return result;
  DeviceEntries entries;
  entries.get_device_proc_addr = next_device;
  entries.destroy_device = reinterpret_cast<PFN_vkDestroyDevice>(
      next_device(*out_device, "vkDestroyDevice"));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices[dispatch_key(*out_device)] = entries;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
destroy_device(VkDevice device, const VkAllocationCallbacks* allocator) {
  if (device == VK_NULL_HANDLE) return;
  const DeviceEntries entries = device_entries(device);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_devices.erase(dispatch_key(device));
  }
  if (entries.destroy_device != nullptr)
    entries.destroy_device(device, allocator);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr(VkDevice device,
                                                              const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
get_instance_proc_addr(VkInstance instance, const char* name) {
  struct Entry {
    const char* name;
    PFN_vkVoidFunction function;
  };
  static const Entry kOwn[] = {
      {"vkGetInstanceProcAddr",
       reinterpret_cast<PFN_vkVoidFunction>(&get_instance_proc_addr)},
      {"vkGetDeviceProcAddr",
       reinterpret_cast<PFN_vkVoidFunction>(&get_device_proc_addr)},
      {"vkCreateInstance",
       reinterpret_cast<PFN_vkVoidFunction>(&create_instance)},
      {"vkDestroyInstance",
       reinterpret_cast<PFN_vkVoidFunction>(&destroy_instance)},
      {"vkCreateDevice", reinterpret_cast<PFN_vkVoidFunction>(&create_device)},
      {"vkDestroyDevice",
       reinterpret_cast<PFN_vkVoidFunction>(&destroy_device)},
      {"vkGetPhysicalDeviceProperties2",
       reinterpret_cast<PFN_vkVoidFunction>(&get_properties2)},
      {"vkGetPhysicalDeviceProperties2KHR",
       reinterpret_cast<PFN_vkVoidFunction>(&get_properties2_khr)},
  };
  for (const Entry& entry : kOwn) {
    if (std::strcmp(name, entry.name) == 0) return entry.function;
  }
  if (instance == VK_NULL_HANDLE) return nullptr;
  const InstanceEntries entries = instance_entries(instance);
  if (entries.get_instance_proc_addr == nullptr) return nullptr;
  return entries.get_instance_proc_addr(instance, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
get_device_proc_addr(VkDevice device, const char* name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) {
    return reinterpret_cast<PFN_vkVoidFunction>(&get_device_proc_addr);
  }
  if (std::strcmp(name, "vkDestroyDevice") == 0) {
    return reinterpret_cast<PFN_vkVoidFunction>(&destroy_device);
  }
  if (device == VK_NULL_HANDLE) return nullptr;
  const DeviceEntries entries = device_entries(device);
  if (entries.get_device_proc_addr == nullptr) return nullptr;
  return entries.get_device_proc_addr(device, name);
}

}  // namespace

// The layer's only exported symbol: the loader negotiates the interface
// through it and receives the two entry points above.
extern "C" __attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (version == nullptr ||
      version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (version->loaderLayerInterfaceVersion > 2) {
    version->loaderLayerInterfaceVersion = 2;
  }
  version->pfnGetInstanceProcAddr = &get_instance_proc_addr;
  version->pfnGetDeviceProcAddr = &get_device_proc_addr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}
