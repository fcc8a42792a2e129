// A Vulkan layer for the tests: it counts the semaphores the application
// creates and destroys, and passes every call through. A test reads the
// counts through halo_test_semaphore_census, which it finds by opening the
// layer's library again (the dynamic linker hands back the copy the Vulkan
// loader opened), to see exactly when the plugin destroys a VkSemaphore.
#include <atomic>
#include <cstdint>

#include "test_layer.hpp"

namespace halo_test_layer {
namespace {

std::atomic<uint64_t> g_created{0};
std::atomic<uint64_t> g_destroyed{0};

VKAPI_ATTR VkResult VKAPI_CALL create_semaphore(
    VkDevice device, const VkSemaphoreCreateInfo* create_info,
    const VkAllocationCallbacks* allocator, VkSemaphore* out_semaphore) {
  auto next = next_device<PFN_vkCreateSemaphore>(device, "vkCreateSemaphore");
  if (next == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = next(device, create_info, allocator, out_semaphore);
  if (result == VK_SUCCESS) g_created.fetch_add(1, std::memory_order_relaxed);
  return result;
}

VKAPI_ATTR void VKAPI_CALL destroy_semaphore(
    VkDevice device, VkSemaphore semaphore,
    const VkAllocationCallbacks* allocator) {
  auto next = next_device<PFN_vkDestroySemaphore>(device, "vkDestroySemaphore");
  if (next == nullptr) return;
  next(device, semaphore, allocator);
  if (semaphore != VK_NULL_HANDLE) {
    g_destroyed.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

const Override kInstanceOverrides[] = {{nullptr, nullptr}};
const Override kDeviceOverrides[] = {
    {"vkCreateSemaphore",
     reinterpret_cast<PFN_vkVoidFunction>(&create_semaphore)},
    {"vkDestroySemaphore",
     reinterpret_cast<PFN_vkVoidFunction>(&destroy_semaphore)},
    {nullptr, nullptr},
};

}  // namespace halo_test_layer

// The semaphores created and destroyed so far, process-wide.
extern "C" __attribute__((visibility("default"))) void
halo_test_semaphore_census(uint64_t* out_created, uint64_t* out_destroyed) {
  *out_created = halo_test_layer::g_created.load(std::memory_order_relaxed);
  *out_destroyed = halo_test_layer::g_destroyed.load(std::memory_order_relaxed);
}
