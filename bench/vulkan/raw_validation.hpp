// Validation of the raw side on the same switch as the plugin's:
// HALO_VULKAN_VALIDATION=1 (or "fatal") makes the raw instance enable the
// Khronos validation layer with synchronization validation too, so that one
// run checks both sides' use of Vulkan. Messages go to stderr.
#ifndef HALO_BENCH_VULKAN_RAW_VALIDATION_HPP_
#define HALO_BENCH_VULKAN_RAW_VALIDATION_HPP_

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>

namespace halo::bench {

class RawValidation {
 public:
  // Reads HALO_VULKAN_VALIDATION and asks the loader for the layer and its
  // extensions. Call before vkCreateInstance; when the layer is requested
  // but missing it says so on stderr and validation stays off.
  void prepare();

  // What VkInstanceCreateInfo needs; empty when validation is off. The
  // returned chain points into this object.
  const void* instance_chain() const { return chain_; }
  uint32_t layer_count() const { return layer_count_; }
  const char* const* layers() const { return layers_; }
  uint32_t extension_count() const { return extension_count_; }
  const char* const* extensions() const { return extensions_; }

  // Creates the messenger on |instance| (when the layer offers debug utils).
  void start(VkInstance instance);
  // Destroys the messenger; call before vkDestroyInstance.
  void stop(VkInstance instance);

  bool enabled() const { return layer_count_ != 0; }
  // Messages the layer reported so far.
  uint64_t message_count() const {
    return messages_.load(std::memory_order_relaxed);
  }

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity,
      VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data);

  bool fatal_ = false;
  const void* chain_ = nullptr;
  const char* layers_[1] = {};
  uint32_t layer_count_ = 0;
  const char* extensions_[2] = {};
  uint32_t extension_count_ = 0;
  VkValidationFeatureEnableEXT enables_[1] = {};
  VkValidationFeaturesEXT features_ = {};
  VkDebugUtilsMessengerCreateInfoEXT messenger_info_ = {};
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::atomic<uint64_t> messages_{0};
};

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_RAW_VALIDATION_HPP_
