// Vulkan validation on request: HALO_VULKAN_VALIDATION=1 enables the Khronos
// validation layer with synchronization validation and routes every message
// it reports through the host log (at ERROR) and stderr;
// HALO_VULKAN_VALIDATION=fatal also aborts the process after writing a
// validation message, so that a test run records the case as failed with the
// message in its output.
#ifndef HALO_VULKAN_VALIDATION_HPP_
#define HALO_VULKAN_VALIDATION_HPP_

#include <cstddef>

#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

enum class ValidationMode { kOff, kOn, kFatal };

// Reads HALO_VULKAN_VALIDATION (secure_getenv): unset, "" or "0" is off,
// "fatal" is fatal, anything else ("1") is on.
ValidationMode validation_mode_from_environment() noexcept;

// What the messenger callback needs; lives as long as the instance.
struct MessengerContext {
  sdk::Host host;
  bool fatal = false;
};

// The layers, extensions and pNext chain an instance needs for validation,
// decided from what the loader offers. Holds the structs the chain points
// into, so it must outlive vkCreateInstance.
struct ValidationSetup {
  ValidationMode mode = ValidationMode::kOff;
  bool layer_present = false;
  bool debug_utils = false;
  bool validation_features = false;
  const char* layers[1] = {};
  uint32_t layer_count = 0;
  const char* extensions[2] = {};
  uint32_t extension_count = 0;
  VkValidationFeatureEnableEXT enables[1] = {};
  VkValidationFeaturesEXT features = {};
  VkDebugUtilsMessengerCreateInfoEXT messenger_info = {};
  // A note for the driver description ("" when validation is off).
  char note[160] = {};

  // Decides everything for |mode| from |library|'s layer list; logs through
  // |context->host| when the layer or an extension is missing. Returns the
  // head of the pNext chain for VkInstanceCreateInfo (or NULL).
  const void* prepare(const Library& library, ValidationMode mode,
                      MessengerContext* context) noexcept;
};

// The messenger callback (exposed for tests): writes the message to the
// host log and stderr, and aborts for a validation message in fatal mode.
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data);

}  // namespace halo::vk

#endif  // HALO_VULKAN_VALIDATION_HPP_
