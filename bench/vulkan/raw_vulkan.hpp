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
//
// The instance stays open for the whole process; each raw benchmark run
// makes its own VkDevice (RawDeviceScope) and lets it go when it ends, as
// each halo run does with its halo device. Each side's runs so have only
// their own VkDevice in the process: on NVIDIA's driver (580) a second,
// idle VkDevice alone made raw Vulkan's host-signalled round trip some 9 %
// slower (bench/README.md).
#ifndef HALO_BENCH_VULKAN_RAW_VULKAN_HPP_
#define HALO_BENCH_VULKAN_RAW_VULKAN_HPP_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

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
  // The device extensions enabled (none, or the plugin's external ones).
  std::vector<const char*> extensions;
  VkPhysicalDeviceMemoryProperties memory = {};
  RawDeviceFunctions vk;
  std::string name;
};

// Creates the raw instance, finds the physical device whose deviceUUID is
// |uuid| and its compute queue family, and creates the device once to
// prove it can, with the plugin's external memory and semaphore
// extensions where offered when |external_extensions|
// (Settings::raw_external_extensions). Returns false and fills |error|
// when Vulkan 1.2, the device, a compute queue or timeline semaphores are
// missing. Call once, before any benchmark runs.
bool open_raw_side(const uint8_t (&uuid)[16], bool external_extensions,
                   std::string* error);

// Destroys the instance. Accepts being called when open_raw_side failed.
void close_raw_side();

// Owns the raw VkDevice of one benchmark run: raw_device().device, its
// functions and its queue are valid while it lives. Make it before pinning
// the thread, so that the threads the driver starts keep the process's
// full affinity. Aborts when the device cannot be made (it could at
// open_raw_side).
class RawDeviceScope {
 public:
  RawDeviceScope();
  // Waits for the device to idle and destroys it.
  ~RawDeviceScope();
  RawDeviceScope(const RawDeviceScope&) = delete;
  RawDeviceScope& operator=(const RawDeviceScope&) = delete;
};

// Returns the raw side: the instance and physical device between
// open_raw_side and close_raw_side, the device within a RawDeviceScope.
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
