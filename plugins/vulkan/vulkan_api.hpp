// The Vulkan entry points the plugin uses, loaded at run time.
//
// The plugin never links libvulkan: it opens the system loader with dlopen
// and fetches every function through vkGetInstanceProcAddr and
// vkGetDeviceProcAddr, so a machine without Vulkan still loads the plugin
// (which then offers no devices and says why). Each table lists its entries
// once, in an X-macro, so the loading code and the members cannot drift.
#ifndef HALO_VULKAN_VULKAN_API_HPP_
#define HALO_VULKAN_VULKAN_API_HPP_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <cstdarg>
#include <cstddef>

namespace halo::vk {

// A reason for a failure, in fixed storage: error paths allocate nothing
// (and all plugin memory must come from the host allocator anyway).
struct ErrorText {
  char text[512] = {};
  // Replaces the text with a printf-style message.
  void set(const char* format, ...) noexcept
      __attribute__((format(printf, 2, 3)));
};

// Entries fetched with a NULL instance.
#define HALO_VK_GLOBAL_FUNCTIONS(X)       \
  X(vkEnumerateInstanceVersion)           \
  X(vkEnumerateInstanceLayerProperties)   \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkCreateInstance)

// Entries of an instance. The debug-utils ones are NULL unless that
// extension is enabled.
#define HALO_VK_INSTANCE_FUNCTIONS(X)          \
  X(vkDestroyInstance)                         \
  X(vkEnumeratePhysicalDevices)                \
  X(vkGetPhysicalDeviceProperties2)            \
  X(vkGetPhysicalDeviceFeatures2)              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)  \
  X(vkGetPhysicalDeviceMemoryProperties)       \
  X(vkGetPhysicalDeviceExternalBufferProperties) \
  X(vkGetPhysicalDeviceExternalSemaphoreProperties) \
  X(vkEnumerateDeviceExtensionProperties)      \
  X(vkCreateDevice)                            \
  X(vkGetDeviceProcAddr)

#define HALO_VK_DEBUG_FUNCTIONS(X)    \
  X(vkCreateDebugUtilsMessengerEXT)   \
  X(vkDestroyDebugUtilsMessengerEXT)  \
  X(vkSubmitDebugUtilsMessageEXT)

// Entries of a device.
#define HALO_VK_DEVICE_FUNCTIONS(X)      \
  X(vkDestroyDevice)                     \
  X(vkGetDeviceQueue)                    \
  X(vkDeviceWaitIdle)                    \
  X(vkQueueSubmit)                       \
  X(vkQueueWaitIdle)                     \
  X(vkCreateSemaphore)                   \
  X(vkDestroySemaphore)                  \
  X(vkSignalSemaphore)                   \
  X(vkWaitSemaphores)                    \
  X(vkGetSemaphoreCounterValue)          \
  X(vkCreateBuffer)                      \
  X(vkDestroyBuffer)                     \
  X(vkGetBufferMemoryRequirements)       \
  X(vkGetBufferMemoryRequirements2)      \
  X(vkAllocateMemory)                    \
  X(vkFreeMemory)                        \
  X(vkBindBufferMemory)                  \
  X(vkMapMemory)                         \
  X(vkUnmapMemory)                       \
  X(vkFlushMappedMemoryRanges)           \
  X(vkInvalidateMappedMemoryRanges)      \
  X(vkCreateCommandPool)                 \
  X(vkDestroyCommandPool)                \
  X(vkAllocateCommandBuffers)            \
  X(vkBeginCommandBuffer)                \
  X(vkEndCommandBuffer)                  \
  X(vkCmdPipelineBarrier)                \
  X(vkCmdFillBuffer)                     \
  X(vkCmdCopyBuffer)                     \
  X(vkCmdBindPipeline)                   \
  X(vkCmdBindDescriptorSets)             \
  X(vkCmdPushConstants)                  \
  X(vkCmdDispatch)                       \
  X(vkCreateShaderModule)                \
  X(vkDestroyShaderModule)               \
  X(vkCreateDescriptorSetLayout)         \
  X(vkDestroyDescriptorSetLayout)        \
  X(vkCreatePipelineLayout)              \
  X(vkDestroyPipelineLayout)             \
  X(vkCreateComputePipelines)            \
  X(vkDestroyPipeline)                   \
  X(vkCreateDescriptorPool)              \
  X(vkDestroyDescriptorPool)             \
  X(vkAllocateDescriptorSets)            \
  X(vkUpdateDescriptorSets)

// Entries of the device extensions for external handles (external.hpp):
// each is NULL unless its extension is enabled on the device.
#define HALO_VK_EXTERNAL_FUNCTIONS(X)     \
  X(vkGetMemoryFdKHR)                     \
  X(vkGetMemoryHostPointerPropertiesEXT)  \
  X(vkGetSemaphoreFdKHR)                  \
  X(vkImportSemaphoreFdKHR)

#define HALO_VK_DECLARE_MEMBER(name) PFN_##name name = nullptr;

// The opened system loader and its global entries. Not copyable: it owns the
// library handle.
class Library {
 public:
  Library() = default;
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // Opens the loader (|name|, normally "libvulkan.so.1") and fetches the
  // global entries. Returns false with the reason in |*error| when the
  // library or an entry is missing; the object is then unusable.
  bool open(const char* name, ErrorText* error);
  bool is_open() const noexcept { return handle_ != nullptr; }

  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  HALO_VK_GLOBAL_FUNCTIONS(HALO_VK_DECLARE_MEMBER)

 private:
  void* handle_ = nullptr;
};

// Remembers which shared objects are loaded, so that the ones a Vulkan call
// loads (the drivers and layers vkCreateInstance opens) can be kept mapped.
class LoadedLibraries {
 public:
  // Records the objects loaded now.
  void snapshot() noexcept;
  // Pins (RTLD_NODELETE) every object loaded since snapshot(): the loader
  // unloads its drivers in vkDestroyInstance, which may run on a plugin
  // thread while the process exits and runs those drivers' exit handlers.
  void pin_new() const noexcept;

 private:
  static constexpr int kCapacity = 512;
  const void* known_[kCapacity] = {};
  int count_ = 0;
};

// The entries of one VkInstance.
struct InstanceFunctions {
  HALO_VK_INSTANCE_FUNCTIONS(HALO_VK_DECLARE_MEMBER)
  HALO_VK_DEBUG_FUNCTIONS(HALO_VK_DECLARE_MEMBER)

  // Fetches every entry of |instance|. Returns false with the name of the
  // first missing core entry in |*error|.
  bool load(const Library& library, VkInstance instance, ErrorText* error);
};

// The entries of one VkDevice.
struct DeviceFunctions {
  HALO_VK_DEVICE_FUNCTIONS(HALO_VK_DECLARE_MEMBER)
  HALO_VK_EXTERNAL_FUNCTIONS(HALO_VK_DECLARE_MEMBER)

  // Fetches every entry of |device|. Returns false with the name of the
  // first missing core entry in |*error|; the external ones stay NULL where
  // the device lacks them.
  bool load(const InstanceFunctions& instance, VkDevice device,
            ErrorText* error);
};

#undef HALO_VK_DECLARE_MEMBER

}  // namespace halo::vk

#endif  // HALO_VULKAN_VULKAN_API_HPP_
