// The plumbing every Vulkan layer of the tests shares (test_layer.hpp).
#include "test_layer.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace halo_test_layer {
namespace {

// The next layer's entry points that this layer calls itself, looked up
// when the instance or device is created (the loader's own lookups answer
// only then for the handle the creation returned).
using NextEntries = std::map<std::string, PFN_vkVoidFunction>;

struct InstanceEntries {
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  NextEntries next;
};

struct DeviceEntries {
  PFN_vkGetDeviceProcAddr get_device_proc_addr = nullptr;
  NextEntries next;
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

PFN_vkVoidFunction find_override(const Override* table, const char* name) {
  for (const Override* entry = table; entry->name != nullptr; ++entry) {
    if (std::strcmp(name, entry->name) == 0) return entry->function;
  }
  return nullptr;
}

// Looks up |first| and every entry point of |table| through |lookup|.
template <class Lookup>
NextEntries look_up_next(const char* first, const Override* table,
                         Lookup lookup) {
  NextEntries next;
  next[first] = lookup(first);
  for (const Override* entry = table; entry->name != nullptr; ++entry) {
    next[entry->name] = lookup(entry->name);
  }
  return next;
}

PFN_vkVoidFunction find_next(const NextEntries& next, const char* name) {
  auto found = next.find(name);
  return found != next.end() ? found->second : nullptr;
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
  entries.get_instance_proc_addr = next;
  VkInstance instance = *out_instance;
  auto lookup = [&](const char* name) { return next(instance, name); };
  entries.next = look_up_next("vkDestroyInstance", kInstanceOverrides, lookup);
  entries.next["vkCreateDevice"] = lookup("vkCreateDevice");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instances[dispatch_key(instance)] = std::move(entries);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
destroy_instance(VkInstance instance, const VkAllocationCallbacks* allocator) {
  if (instance == VK_NULL_HANDLE) return;
  auto destroy =
      next_instance<PFN_vkDestroyInstance>(instance, "vkDestroyInstance");
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_instances.erase(dispatch_key(instance));
  }
  if (destroy != nullptr) destroy(instance, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL create_device(
    VkPhysicalDevice physical_device, const VkDeviceCreateInfo* create_info,
    const VkAllocationCallbacks* allocator, VkDevice* out_device) {
  auto* link = find_link<VkLayerDeviceCreateInfo>(
      create_info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (link == nullptr || link->u.pLayerInfo == nullptr) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  PFN_vkGetDeviceProcAddr next_device_proc_addr =
      link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create =
      next_instance<PFN_vkCreateDevice>(physical_device, "vkCreateDevice");
  if (create == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = create(physical_device, create_info, allocator, out_device);
  if (result != VK_SUCCESS) return result;
  DeviceEntries entries;
  entries.get_device_proc_addr = next_device_proc_addr;
  VkDevice device = *out_device;
  auto lookup = [&](const char* name) {
    return next_device_proc_addr(device, name);
  };
  entries.next = look_up_next("vkDestroyDevice", kDeviceOverrides, lookup);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices[dispatch_key(device)] = std::move(entries);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
destroy_device(VkDevice device, const VkAllocationCallbacks* allocator) {
  if (device == VK_NULL_HANDLE) return;
  auto destroy = next_device<PFN_vkDestroyDevice>(device, "vkDestroyDevice");
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_devices.erase(dispatch_key(device));
  }
  if (destroy != nullptr) destroy(device, allocator);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL get_device_proc_addr(VkDevice device,
                                                              const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
get_instance_proc_addr(VkInstance instance, const char* name) {
  static const Override kChain[] = {
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
      {nullptr, nullptr},
  };
  for (const Override* table : {kChain, kInstanceOverrides, kDeviceOverrides}) {
    if (PFN_vkVoidFunction own = find_override(table, name)) return own;
  }
  if (instance == VK_NULL_HANDLE) return nullptr;
  const InstanceEntries entries = instance_entries(instance);
  if (entries.get_instance_proc_addr == nullptr) return nullptr;
  return entries.get_instance_proc_addr(instance, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
get_device_proc_addr(VkDevice device, const char* name) {
  static const Override kChain[] = {
      {"vkGetDeviceProcAddr",
       reinterpret_cast<PFN_vkVoidFunction>(&get_device_proc_addr)},
      {"vkDestroyDevice",
       reinterpret_cast<PFN_vkVoidFunction>(&destroy_device)},
      {nullptr, nullptr},
  };
  for (const Override* table : {kChain, kDeviceOverrides}) {
    if (PFN_vkVoidFunction own = find_override(table, name)) return own;
  }
  if (device == VK_NULL_HANDLE) return nullptr;
  const DeviceEntries entries = device_entries(device);
  if (entries.get_device_proc_addr == nullptr) return nullptr;
  return entries.get_device_proc_addr(device, name);
}

}  // namespace

PFN_vkVoidFunction next_instance_proc(const void* handle, const char* name) {
  return find_next(instance_entries(handle).next, name);
}

PFN_vkVoidFunction next_device_proc(const void* handle, const char* name) {
  return find_next(device_entries(handle).next, name);
}

}  // namespace halo_test_layer

// The layer's only exported entry point: the loader negotiates the
// interface through it and receives the two lookups above.
extern "C" __attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (version == nullptr ||
      version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) {
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  if (version->loaderLayerInterfaceVersion > 2) {
    version->loaderLayerInterfaceVersion = 2;
  }
  version->pfnGetInstanceProcAddr = &halo_test_layer::get_instance_proc_addr;
  version->pfnGetDeviceProcAddr = &halo_test_layer::get_device_proc_addr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}
