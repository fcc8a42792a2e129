// The validation layer setup and the debug-utils messenger.
#include "validation.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace halo::vk {
namespace {

constexpr char kLayerName[] = "VK_LAYER_KHRONOS_validation";
// The message id under which the layer reports a timeout of its own
// timeline-semaphore tracking.
constexpr char kLayerSelfDiagnosis[] = "UNASSIGNED-VkSemaphore-state-timeout";

// Returns true when |layer| lists the instance extension |name|. The layer's
// extension list is short, so a fixed array suffices.
bool layer_has_extension(const Library& library, const char* layer,
                         const char* name) noexcept {
  VkExtensionProperties extensions[64];
  uint32_t count = 64;
  VkResult result =
      library.vkEnumerateInstanceExtensionProperties(layer, &count, extensions);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(extensions[i].extensionName, name) == 0) return true;
  }
  return false;
}

bool has_layer(const Library& library, const char* name) noexcept {
  uint32_t count = 0;
  if (library.vkEnumerateInstanceLayerProperties(&count, nullptr) !=
      VK_SUCCESS) {
    return false;
  }
  VkLayerProperties layers[64];
  if (count > 64) count = 64;
  VkResult result = library.vkEnumerateInstanceLayerProperties(&count, layers);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(layers[i].layerName, name) == 0) return true;
  }
  return false;
}

const char* severity_name(VkDebugUtilsMessageSeverityFlagBitsEXT severity) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) return "error";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    return "warning";
  }
  return "info";
}

}  // namespace

ValidationMode validation_mode_from_environment() noexcept {
  const char* value = secure_getenv("HALO_VULKAN_VALIDATION");
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "0") == 0) {
    return ValidationMode::kOff;
  }
  if (std::strcmp(value, "fatal") == 0) return ValidationMode::kFatal;
  return ValidationMode::kOn;
}

const void* ValidationSetup::prepare(const Library& library,
                                     ValidationMode requested,
                                     MessengerContext* context) noexcept {
  mode = requested;
  if (mode == ValidationMode::kOff) return nullptr;
  const char* mode_name = mode == ValidationMode::kFatal ? "fatal" : "on";
  layer_present = has_layer(library, kLayerName);
  if (!layer_present) {
    std::snprintf(note, sizeof(note),
                  "validation requested (%s) but %s is not installed: "
                  "running without it",
                  mode_name, kLayerName);
    context->host.log(HALO_LOG_LEVEL_ERROR, "%s", note);
    std::fprintf(stderr, "halo vulkan: %s\n", note);
    return nullptr;
  }
  layers[layer_count++] = kLayerName;
  debug_utils = layer_has_extension(library, kLayerName,
                                    VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  validation_features = layer_has_extension(
      library, kLayerName, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  const void* chain = nullptr;
  if (validation_features) {
    extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
    enables[0] = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    chain = &features;
  }
  if (debug_utils) {
    extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    messenger_info.sType =
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger_info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = &on_validation_message;
    messenger_info.pUserData = context;
    // Chained into the instance as well, so that messages about instance
    // creation and destruction are reported too.
    messenger_info.pNext = chain;
    chain = &messenger_info;
  }
  std::snprintf(note, sizeof(note), "validation %s (%s%s)", mode_name,
                kLayerName,
                validation_features ? " with synchronization validation"
                                    : ", no synchronization validation");
  if (!debug_utils) {
    context->host.log(HALO_LOG_LEVEL_ERROR,
                      "%s lacks %s: its messages cannot be routed to the log",
                      kLayerName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  return chain;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data) {
  auto* context = static_cast<MessengerContext*>(user_data);
  const char* id = data != nullptr && data->pMessageIdName != nullptr
                       ? data->pMessageIdName
                       : "";
  const char* message =
      data != nullptr && data->pMessage != nullptr ? data->pMessage : "";
  context->host.log(HALO_LOG_LEVEL_ERROR, "Vulkan %s [%s]: %s",
                    severity_name(severity), id, message);
  std::fprintf(stderr, "halo vulkan: Vulkan %s [%s]: %s\n",
               severity_name(severity), id, message);
  // Only the layer's findings about the program are fatal: loader notes
  // about, say, an ICD manifest it could not read are not errors of the
  // program under test, and neither is the layer's report that its own
  // bookkeeping of a timeline semaphore lagged behind the driver (it calls
  // that "most likely a validation bug").
  const bool self_diagnosis = std::strcmp(id, kLayerSelfDiagnosis) == 0;
  if (context->fatal && !self_diagnosis &&
      (types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) != 0) {
    std::fprintf(stderr,
                 "halo vulkan: aborting (HALO_VULKAN_VALIDATION=fatal)\n");
    std::fflush(stderr);
    std::abort();
  }
  return VK_FALSE;
}

}  // namespace halo::vk
