// Describing physical devices: which ones qualify, their halo info and
// capabilities.
#include "adapter.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compute_units.hpp"

namespace halo::vk {
namespace {

// Copies |text| into |out|, cut to fit and NUL-terminated.
template <size_t N>
void copy_text(char (&out)[N], const char* text) {
  size_t length = strnlen(text, N - 1);
  std::memcpy(out, text, length);
  out[length] = '\0';
}

uint32_t device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return HALO_DEVICE_TYPE_GPU_DISCRETE;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return HALO_DEVICE_TYPE_GPU_INTEGRATED;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return HALO_DEVICE_TYPE_GPU_VIRTUAL;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return HALO_DEVICE_TYPE_CPU;
    default:
      return HALO_DEVICE_TYPE_OTHER;
  }
}

// Vendor names for the PCI ids (and Khronos vendor ids) seen in practice;
// others fall back to the driver's name.
const char* vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x1002: return "AMD";
    case 0x10DE: return "NVIDIA";
    case 0x8086: return "Intel";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x1010: return "Imagination";
    case 0x106B: return "Apple";
    case VK_VENDOR_ID_MESA: return "Mesa";
    default: return nullptr;
  }
}

// Picks a queue family with compute, preferring one without graphics (a
// dedicated compute queue). Returns false when none has compute.
bool pick_compute_family(const InstanceFunctions& vki,
                         VkPhysicalDevice physical_device,
                         uint32_t* out_family) {
  VkQueueFamilyProperties families[32];
  uint32_t count = 32;
  vki.vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count,
                                               families);
  bool found = false;
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0) continue;
    bool dedicated = (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) == 0;
    if (!found || dedicated) *out_family = i;
    found = true;
    if (dedicated) break;
  }
  return found;
}

// The dispatch limits of ABI 1.2, as the device reports them; bindings
// and constants also as the command buffer records them (kMaxBindings,
// kMaxConstantBytes). Vulkan limits only each dimension's count.
void fill_dispatch_limits(const VkPhysicalDeviceLimits& limits,
                          halo_device_capabilities_t& caps) {
  for (int d = 0; d < 3; ++d) {
    caps.max_workgroup_size[d] = limits.maxComputeWorkGroupSize[d];
    caps.max_workgroup_count[d] = limits.maxComputeWorkGroupCount[d];
  }
  caps.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  caps.max_workgroup_count_total = UINT64_MAX;
  caps.max_binding_count =
      std::min(limits.maxPerStageDescriptorStorageBuffers, kMaxBindings);
  caps.max_constant_size =
      std::min(limits.maxPushConstantsSize, kMaxConstantBytes);
}

void fill_capabilities(const VkPhysicalDeviceProperties& properties,
                       const VkPhysicalDeviceVulkan11Properties& v11,
                       const VkPhysicalDeviceVulkan12Properties& v12,
                       Adapter* adapter) {
  const VkPhysicalDeviceLimits& limits = properties.limits;
  AdapterLimits& out = adapter->limits;
  out.max_timeline_difference = v12.maxTimelineSemaphoreValueDifference;
  out.min_storage_offset_alignment =
      std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 1);
  out.non_coherent_atom_size =
      std::max<uint64_t>(limits.nonCoherentAtomSize, 1);
  out.min_memory_map_alignment =
      std::max<uint64_t>(limits.minMemoryMapAlignment, 1);
  out.max_storage_buffer_range = limits.maxStorageBufferRange;
  out.max_bound_descriptor_sets = limits.maxBoundDescriptorSets;

  halo_device_capabilities_t& caps = adapter->capabilities;
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
                  HALO_DEVICE_FEATURE_BUFFERS |
                  HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                  HALO_DEVICE_FEATURE_DISPATCH |
                  HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT;
  caps.max_semaphore_value_difference =
      std::min<uint64_t>(out.max_timeline_difference, HALO_SEMAPHORE_MAX_VALUE);
  // A buffer must fit one allocation and one heap, and be bindable whole as
  // a storage buffer.
  uint64_t largest_heap = 0;
  for (uint32_t i = 0; i < adapter->memory.memoryHeapCount; ++i) {
    largest_heap = std::max(largest_heap, adapter->memory.memoryHeaps[i].size);
  }
  caps.max_buffer_size = std::min<uint64_t>(
      {limits.maxStorageBufferRange, v11.maxMemoryAllocationSize,
       largest_heap});
  // At least 4 so that aligned ranges take the native fill and copy paths.
  caps.min_buffer_alignment =
      std::max<uint64_t>(out.min_storage_offset_alignment, 4);
  caps.memory_types = 0;
  for (uint32_t i = 0; i < adapter->memory.memoryTypeCount; ++i) {
    caps.memory_types |=
        memory_type_bits(adapter->memory.memoryTypes[i].propertyFlags);
  }
  copy_text(caps.executable_formats, "spirv");
  caps.device_memory_size = largest_heap;
  fill_dispatch_limits(limits, caps);
}

void fill_info(const VkPhysicalDeviceProperties& properties,
               const VkPhysicalDeviceVulkan11Properties& v11,
               const VkPhysicalDeviceVulkan12Properties& v12,
               halo_device_id_t id, halo_device_info_t* info) {
  info->struct_size = sizeof(*info);
  info->type = device_type(properties.deviceType);
  info->device_id = id;
  copy_text(info->name, properties.deviceName);
  const char* vendor = vendor_name(properties.vendorID);
  copy_text(info->vendor, vendor != nullptr ? vendor : v12.driverName);
  if (v12.driverInfo[0] != '\0') {
    copy_text(info->driver_version, v12.driverInfo);
  } else {
    std::snprintf(info->driver_version, sizeof(info->driver_version),
                  "0x%08x", properties.driverVersion);
  }
  info->vendor_id = properties.vendorID;
  info->native_device_id = properties.deviceID;
  std::memcpy(info->uuid, v11.deviceUUID, sizeof(info->uuid));
  std::snprintf(info->native_api, sizeof(info->native_api), "Vulkan %u.%u.%u",
                VK_API_VERSION_MAJOR(properties.apiVersion),
                VK_API_VERSION_MINOR(properties.apiVersion),
                VK_API_VERSION_PATCH(properties.apiVersion));
}

}  // namespace

bool has_device_extension(const InstanceFunctions& vki,
                          VkPhysicalDevice physical_device,
                          const char* name) noexcept {
  uint32_t count = 0;
  if (vki.vkEnumerateDeviceExtensionProperties(physical_device, nullptr,
                                               &count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> extensions;
  try {
    extensions.resize(count);
  } catch (...) {
    return false;  // Out of memory: the extension counts as absent.
  }
  if (vki.vkEnumerateDeviceExtensionProperties(
          physical_device, nullptr, &count, extensions.data()) < 0) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(extensions[i].extensionName, name) == 0) return true;
  }
  return false;
}

halo_memory_type_t memory_type_bits(VkMemoryPropertyFlags flags) noexcept {
  halo_memory_type_t bits = 0;
  if (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
    bits |= HALO_MEMORY_TYPE_DEVICE_LOCAL;
  }
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    bits |= HALO_MEMORY_TYPE_HOST_VISIBLE;
  }
  if (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) {
    bits |= HALO_MEMORY_TYPE_HOST_COHERENT;
  }
  if (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) {
    bits |= HALO_MEMORY_TYPE_HOST_CACHED;
  }
  return bits;
}

namespace {

// Whether to wait on one semaphore at a time (Adapter::sliced_waits). Not
// under the validation layer unless asked: Debian 12's layer (1.3.239)
// tracks single-semaphore waits behind host signals made on other threads
// and reports them after its 10 s timeout, which multi-semaphore waits avoid.
bool wants_sliced_waits(VkDriverId driver, bool validating) noexcept {
  const char* forced = secure_getenv("HALO_VULKAN_SLICED_WAITS");
  if (forced != nullptr && std::strcmp(forced, "1") == 0) return true;
  if (forced != nullptr && std::strcmp(forced, "0") == 0) return false;
  return driver == VK_DRIVER_ID_MESA_LLVMPIPE && !validating;
}

// Whether the notification thread polls (Adapter::polls_completion).
bool wants_polled_completion(VkPhysicalDeviceType type) noexcept {
  const char* forced = secure_getenv("HALO_VULKAN_COMPLETION_POLL");
  if (forced != nullptr && std::strcmp(forced, "1") == 0) return true;
  if (forced != nullptr && std::strcmp(forced, "0") == 0) return false;
  return type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

}  // namespace

bool describe_adapter(const InstanceFunctions& vki,
                      VkPhysicalDevice physical_device, halo_device_id_t id,
                      bool validating, Adapter* adapter, char* reason,
                      size_t capacity) noexcept {
  VkPhysicalDeviceVulkan12Properties v12 = {};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  VkPhysicalDeviceVulkan11Properties v11 = {};
  v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
  v11.pNext = &v12;
  VkPhysicalDeviceProperties2 properties = {};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  const VkPhysicalDeviceProperties& core = properties.properties;
  // Vulkan 1.2's property structs may only be chained on a 1.2 device.
  VkPhysicalDeviceProperties2 probe = {};
  probe.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  vki.vkGetPhysicalDeviceProperties2(physical_device, &probe);
  if (probe.properties.apiVersion < VK_API_VERSION_1_2) {
    std::snprintf(reason, capacity, "%s supports only Vulkan %u.%u (1.2 needed)",
                  probe.properties.deviceName,
                  VK_API_VERSION_MAJOR(probe.properties.apiVersion),
                  VK_API_VERSION_MINOR(probe.properties.apiVersion));
    return false;
  }
  properties.pNext = &v11;
  vki.vkGetPhysicalDeviceProperties2(physical_device, &properties);
  VkPhysicalDeviceVulkan12Features features12 = {};
  features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &features12;
  vki.vkGetPhysicalDeviceFeatures2(physical_device, &features);
  if (!features12.timelineSemaphore) {
    std::snprintf(reason, capacity, "%s lacks timeline semaphores",
                  core.deviceName);
    return false;
  }
  if (!pick_compute_family(vki, physical_device, &adapter->queue_family)) {
    std::snprintf(reason, capacity, "%s has no compute queue",
                  core.deviceName);
    return false;
  }
  adapter->physical_device = physical_device;
  adapter->api_version = core.apiVersion;
  vki.vkGetPhysicalDeviceMemoryProperties(physical_device, &adapter->memory);
  fill_info(core, v11, v12, id, &adapter->info);
  adapter->info.compute_units =
      count_compute_units(vki, physical_device, core.deviceType);
  fill_capabilities(core, v11, v12, adapter);
  describe_external(vki, adapter);
  adapter->sliced_waits = wants_sliced_waits(v12.driverID, validating);
  adapter->polls_completion = wants_polled_completion(core.deviceType);
  return true;
}

}  // namespace halo::vk
