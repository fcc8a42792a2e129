// Which external handles a physical device supports, from its extensions
// and the external-memory and external-semaphore property queries.
#include "external_support.hpp"

#include "adapter.hpp"
#include "halo/semaphore.h"

namespace halo::vk {
namespace {

// The features of the plugin's buffers as external memory of |type|.
VkExternalMemoryFeatureFlags buffer_features(
    const InstanceFunctions& vki, VkPhysicalDevice physical_device,
    VkExternalMemoryHandleTypeFlagBits type) {
  VkPhysicalDeviceExternalBufferInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO;
  info.usage = kBufferUsage;
  info.handleType = type;
  VkExternalBufferProperties properties = {};
  properties.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES;
  vki.vkGetPhysicalDeviceExternalBufferProperties(physical_device, &info,
                                                   &properties);
  return properties.externalMemoryProperties.externalMemoryFeatures;
}

// The features of a timeline semaphore as an opaque fd. The type must be
// named: a driver may share binary semaphores but not timelines.
VkExternalSemaphoreFeatureFlags timeline_fd_features(
    const InstanceFunctions& vki, VkPhysicalDevice physical_device) {
  VkSemaphoreTypeCreateInfo type = {};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkPhysicalDeviceExternalSemaphoreInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
  info.pNext = &type;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties properties = {};
  properties.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
  vki.vkGetPhysicalDeviceExternalSemaphoreProperties(physical_device, &info,
                                                      &properties);
  return properties.externalSemaphoreFeatures;
}

uint64_t host_pointer_alignment(const InstanceFunctions& vki,
                                VkPhysicalDevice physical_device) {
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {};
  host.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
  VkPhysicalDeviceProperties2 properties = {};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &host;
  vki.vkGetPhysicalDeviceProperties2(physical_device, &properties);
  return host.minImportedHostPointerAlignment;
}

void describe_buffers(const InstanceFunctions& vki, Adapter* adapter) {
  VkPhysicalDevice physical_device = adapter->physical_device;
  ExternalSupport& support = adapter->external;
  halo_device_capabilities_t& caps = adapter->capabilities;
  if (support.memory_fd) {
    const VkExternalMemoryFeatureFlags features = buffer_features(
        vki, physical_device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    if (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) {
      caps.buffer_export_types |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
    }
    if (features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) {
      caps.buffer_import_types |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
    }
    support.opaque_fd_dedicated_only =
        (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
  }
  if (support.memory_host) {
    const VkExternalMemoryFeatureFlags features = buffer_features(
        vki, physical_device,
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT);
    const uint64_t alignment = host_pointer_alignment(vki, physical_device);
    // A dedicated host import is meaningless, and the ABI's alignment must
    // be a power of two.
    if ((features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) &&
        !(features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) &&
        alignment != 0 && (alignment & (alignment - 1)) == 0) {
      caps.buffer_import_types |= HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
      caps.host_allocation_alignment = alignment;
    }
  }
}

void describe_semaphores(const InstanceFunctions& vki, Adapter* adapter) {
  // A failure crosses to the other side as a payload of
  // HALO_SEMAPHORE_FAILURE_VALUE, which a host signal may set only where
  // the timeline difference allows it, from any payload, 0 included
  // (semaphore_external.cpp).
  if (!adapter->external.semaphore_fd ||
      adapter->limits.max_timeline_difference < HALO_SEMAPHORE_FAILURE_VALUE) {
    return;
  }
  const VkExternalSemaphoreFeatureFlags features =
      timeline_fd_features(vki, adapter->physical_device);
  halo_device_capabilities_t& caps = adapter->capabilities;
  if (features & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) {
    caps.semaphore_export_types |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  }
  if (features & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT) {
    caps.semaphore_import_types |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  }
}

}  // namespace

void describe_external(const InstanceFunctions& vki,
                       Adapter* adapter) noexcept {
  VkPhysicalDevice physical_device = adapter->physical_device;
  ExternalSupport& support = adapter->external;
  support.memory_fd = has_device_extension(
      vki, physical_device, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  support.memory_host = has_device_extension(
      vki, physical_device, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  support.semaphore_fd = has_device_extension(
      vki, physical_device, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  describe_buffers(vki, adapter);
  describe_semaphores(vki, adapter);
}

uint32_t external_extensions(const ExternalSupport& support,
                             const char** names) noexcept {
  uint32_t count = 0;
  if (support.memory_fd) {
    names[count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
  }
  if (support.memory_host) {
    names[count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
  }
  if (support.semaphore_fd) {
    names[count++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
  }
  return count;
}

}  // namespace halo::vk
