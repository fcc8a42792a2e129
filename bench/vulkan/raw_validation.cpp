// The raw side's validation layer and debug-utils messenger.
#include "raw_validation.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace halo::bench {
namespace {

constexpr char kLayer[] = "VK_LAYER_KHRONOS_validation";

bool loader_has_layer(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) !=
      VK_SUCCESS) {
    return false;
  }
  for (const VkLayerProperties& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return true;
  }
  return false;
}

bool layer_has_extension(const char* layer, const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) !=
      VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateInstanceExtensionProperties(layer, &count,
                                             extensions.data()) != VK_SUCCESS) {
    return false;
  }
  for (const VkExtensionProperties& extension : extensions) {
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  }
  return false;
}

}  // namespace

void RawValidation::prepare() {
  const char* mode = std::getenv("HALO_VULKAN_VALIDATION");
  if (mode == nullptr || mode[0] == '\0' || std::strcmp(mode, "0") == 0) {
    return;
  }
  fatal_ = std::strcmp(mode, "fatal") == 0;
  if (!loader_has_layer(kLayer)) {
    std::fprintf(stderr,
                 "halo-bench-vulkan: HALO_VULKAN_VALIDATION is set but %s is "
                 "not installed: the raw side runs without it\n",
                 kLayer);
    return;
  }
  layers_[layer_count_++] = kLayer;
  if (layer_has_extension(kLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
    extensions_[extension_count_++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    enables_[0] = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    features_.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    features_.enabledValidationFeatureCount = 1;
    features_.pEnabledValidationFeatures = enables_;
    chain_ = &features_;
  }
  if (layer_has_extension(kLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    extensions_[extension_count_++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    messenger_info_.sType =
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger_info_.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info_.messageType =
        VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info_.pfnUserCallback = &RawValidation::on_message;
    messenger_info_.pUserData = this;
    // Chained into the instance too, so that instance creation and
    // destruction are reported as well.
    messenger_info_.pNext = chain_;
    chain_ = &messenger_info_;
  }
}

void RawValidation::start(VkInstance instance) {
  if (messenger_info_.sType == 0) return;
  auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  if (create == nullptr) return;
  VkDebugUtilsMessengerCreateInfoEXT info = messenger_info_;
  info.pNext = nullptr;
  if (create(instance, &info, nullptr, &messenger_) != VK_SUCCESS) {
    messenger_ = VK_NULL_HANDLE;
  }
}

void RawValidation::stop(VkInstance instance) {
  if (messenger_ == VK_NULL_HANDLE) return;
  auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (destroy != nullptr) destroy(instance, messenger_, nullptr);
  messenger_ = VK_NULL_HANDLE;
}

VKAPI_ATTR VkBool32 VKAPI_CALL RawValidation::on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data) {
  auto* self = static_cast<RawValidation*>(user_data);
  self->messages_.fetch_add(1, std::memory_order_relaxed);
  const char* id = data != nullptr && data->pMessageIdName != nullptr
                       ? data->pMessageIdName
                       : "";
  const char* message =
      data != nullptr && data->pMessage != nullptr ? data->pMessage : "";
  std::fprintf(stderr, "halo-bench-vulkan: raw side validation [%s]: %s\n", id,
               message);
  // Loader notes (general messages) never abort; findings about the
  // program do in fatal mode, as the plugin's do.
  if (self->fatal_ && (types & ~VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT)) {
    std::fflush(stderr);
    std::abort();
  }
  return VK_FALSE;
}

}  // namespace halo::bench
