// The raw side: Vulkan as an application writes it without halo.
//
// halo gives no access to its VkDevice, so the raw side makes its own
// VkInstance and VkDevice on the SAME physical device as the halo device
// (matched by VkPhysicalDeviceIDProperties::deviceUUID, which is what
// halo_device_info_t::uuid reports), with a queue of the same kind the
// plugin picks (a compute family, preferring one without graphics) and
// timeline semaphores enabled (a Vulkan 1.2 core feature). Same hardware,
// same driver, separate VkDevice: what differs between the two sides is
// halo's code, which is what the benchmarks measure.
#ifndef HALO_BENCH_VULKAN_RAW_VULKAN_HPP_
#define HALO_BENCH_VULKAN_RAW_VULKAN_HPP_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>

namespace halo::bench {

// The device-level entry points the raw side calls, fetched with
// vkGetDeviceProcAddr (as the plugin fetches its own) so that no timed call
// goes through the loader's trampolines.
#define HALO_BENCH_RAW_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                       \
  X(vkDeviceWaitIdle)                      \
  X(vkGetDeviceQueue)                      \
  X(vkQueueSubmit)                         \
  X(vkQueueWaitIdle)                       \
  X(vkCreateSemaphore)                     \
  X(vkDestroySemaphore)                    \
  X(vkGetSemaphoreCounterValue)            \
  X(vkSignalSemaphore)                     \
  X(vkWaitSemaphores)                      \
  X(vkCreateBuffer)                        \
  X(vkDestroyBuffer)                       \
  X(vkGetBufferMemoryRequirements)         \
  X(vkAllocateMemory)                      \
  X(vkFreeMemory)                          \
  X(vkBindBufferMemory)                    \
  X(vkCreateCommandPool)                   \
  X(vkDestroyCommandPool)                  \
  X(vkAllocateCommandBuffers)              \
  X(vkBeginCommandBuffer)                  \
  X(vkEndCommandBuffer)                    \
  X(vkCmdFillBuffer)                       \
  X(vkCmdCopyBuffer)                       \
  X(vkCmdBindPipeline)                     \
  X(vkCmdDispatch)                         \
  X(vkCreateShaderModule)                  \
  X(vkDestroyShaderModule)                 \
  X(vkCreatePipelineLayout)                \
  X(vkDestroyPipelineLayout)               \
  X(vkCreateComputePipelines)              \
  X(vkDestroyPipeline)

struct RawDeviceFunctions {
#define HALO_BENCH_RAW_MEMBER_(name) PFN_##name name = nullptr;
  HALO_BENCH_RAW_DEVICE_FUNCTIONS(HALO_BENCH_RAW_MEMBER_)
#undef HALO_BENCH_RAW_MEMBER_
};

struct RawDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkPhysicalDeviceMemoryProperties memory = {};
  RawDeviceFunctions vk;
  std::string name;
};

// Creates the raw instance and device on the physical device whose
// deviceUUID is |uuid|. Returns false and fills |error| when Vulkan 1.2,
// the device, a compute queue or timeline semaphores are missing. Call
// once, before any benchmark runs.
bool open_raw_device(const uint8_t (&uuid)[16], std::string* error);

// Waits for the device to idle and destroys the device and the instance.
// Accepts being called when open_raw_device failed.
void close_raw_device();

// Returns the raw device (valid between open and close).
const RawDevice& raw_device();

// Returns the number of messages the raw side's validation layer reported
// (0 when validation is off).
uint64_t raw_validation_messages();

// Returns the name of |result| ("VK_ERROR_DEVICE_LOST"), or "VkResult".
const char* vk_result_name(VkResult result);

// Prints the failed call |what| and |result|, then aborts.
[[noreturn]] void die_vk(const char* what, VkResult result);

// Aborts through die_vk() when |result| is not VK_SUCCESS.
inline void check_vk(VkResult result, const char* what) {
  if (result != VK_SUCCESS) [[unlikely]] {
    die_vk(what, result);
  }
}

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_RAW_VULKAN_HPP_
