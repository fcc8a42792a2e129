// Native Vulkan errors as halo statuses (DESIGN.md §9): every status names
// the Vulkan call and the VkResult, by name and number.
#ifndef HALO_VULKAN_VK_STATUS_HPP_
#define HALO_VULKAN_VK_STATUS_HPP_

#include "halo/sdk/host.hpp"
#include "halo/sdk/status.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

// Returns the enumerator name of |result| ("VK_ERROR_DEVICE_LOST"), or
// "VK_RESULT_UNKNOWN" for a value this plugin does not know.
const char* result_name(VkResult result) noexcept;

// Returns the halo code for a failed |result|: RESOURCE_EXHAUSTED for the
// out-of-memory results, UNAVAILABLE for a lost device or missing driver,
// UNIMPLEMENTED for missing features or extensions, INVALID_ARGUMENT for an
// external handle the driver refuses, INTERNAL otherwise.
halo_status_code_t result_code(VkResult result) noexcept;

// Returns a new status "|call| failed: VK_ERROR_… (n)" for a failed
// |result| (not VK_SUCCESS).
halo_status_t vk_failure(sdk::Host host, const char* call,
                         VkResult result) noexcept;

// Returns OK when |result| is VK_SUCCESS, else vk_failure's status.
inline halo_status_t vk_status(sdk::Host host, const char* call,
                               VkResult result) noexcept {
  if (result == VK_SUCCESS) [[likely]] return HALO_OK;
  return vk_failure(host, call, result);
}

}  // namespace halo::vk

// Returns from the enclosing function with a status when |call_expression|
// (a Vulkan call returning VkResult) does not return VK_SUCCESS. |name| is
// the call's name for the message.
#define HALO_VK_RETURN_IF_FAILED(host, name, call_expression) \
  HALO_SDK_RETURN_IF_ERROR(                                   \
      ::halo::vk::vk_status((host), (name), (call_expression)))

#endif  // HALO_VULKAN_VK_STATUS_HPP_
