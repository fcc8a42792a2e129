// Native Vulkan errors as halo statuses (DESIGN.md §9): every status names
// the Vulkan call and the VkResult, by name and number.
#ifndef HALO_VULKAN_VK_STATUS_HPP_
#define HALO_VULKAN_VK_STATUS_HPP_

#include "halo/sdk/commands.hpp"
#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

// Returns the enumerator name of |result| ("VK_ERROR_DEVICE_LOST"), or
// "VK_RESULT_UNKNOWN" for a value this plugin does not know.
const char* result_name(VkResult result) noexcept;

// Returns the halo code for a failed |result|: RESOURCE_EXHAUSTED for the
// out-of-memory results, UNAVAILABLE for a lost device or missing driver,
// UNIMPLEMENTED for missing features or extensions, INTERNAL otherwise.
halo_status_code_t result_code(VkResult result) noexcept;

// Returns OK when |result| is VK_SUCCESS, else a new status
// "|call| failed: VK_ERROR_… (n)".
halo_status_t vk_status(sdk::Host host, const char* call,
                        VkResult result) noexcept;

}  // namespace halo::vk

// Returns from the enclosing function with a status when |call_expression|
// (a Vulkan call returning VkResult) does not return VK_SUCCESS. |name| is
// the call's name for the message.
#define HALO_VK_RETURN_IF_FAILED(host, name, call_expression)               \
  do {                                                                      \
    VkResult halo_vk_result_ = (call_expression);                           \
    if (halo_vk_result_ != VK_SUCCESS)                                      \
      return ::halo::vk::vk_status((host), (name), halo_vk_result_);        \
  } while (0)

#endif  // HALO_VULKAN_VK_STATUS_HPP_
