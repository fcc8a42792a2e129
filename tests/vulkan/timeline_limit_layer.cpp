// A Vulkan layer for the tests: it reports a lower
// maxTimelineSemaphoreValueDifference than the driver beneath it, and
// passes every other call through. Lavapipe reports no limit at all
// (UINT64_MAX), so without this layer the plugin's enforcement of the limit
// could not be exercised. The value it reports, HALO_TEST_TIMELINE_LIMIT_VALUE,
// is the smallest the Vulkan specification allows (2^31 - 1), so a plugin
// that honours it works on every conformant device.
#include "test_layer.hpp"

namespace halo_test_layer {
namespace {

constexpr uint64_t kLimit = HALO_TEST_TIMELINE_LIMIT_VALUE;

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
  auto next = next_instance<PFN_vkGetPhysicalDeviceProperties2>(
      physical_device, "vkGetPhysicalDeviceProperties2");
  if (next == nullptr) return;
  next(physical_device, properties);
  lower_limit(properties);
}

VKAPI_ATTR void VKAPI_CALL get_properties2_khr(
    VkPhysicalDevice physical_device, VkPhysicalDeviceProperties2* properties) {
  auto next = next_instance<PFN_vkGetPhysicalDeviceProperties2>(
      physical_device, "vkGetPhysicalDeviceProperties2KHR");
  if (next == nullptr) return;
  next(physical_device, properties);
  lower_limit(properties);
}

}  // namespace

const Override kInstanceOverrides[] = {
    {"vkGetPhysicalDeviceProperties2",
     reinterpret_cast<PFN_vkVoidFunction>(&get_properties2)},
    {"vkGetPhysicalDeviceProperties2KHR",
     reinterpret_cast<PFN_vkVoidFunction>(&get_properties2_khr)},
    {nullptr, nullptr},
};
const Override kDeviceOverrides[] = {{nullptr, nullptr}};

}  // namespace halo_test_layer
