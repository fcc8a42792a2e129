// The units a Vulkan device runs workgroups on (halo_device_info_t's
// compute_units). Core Vulkan does not say; vendor extensions do.
#ifndef HALO_VULKAN_COMPUTE_UNITS_HPP_
#define HALO_VULKAN_COMPUTE_UNITS_HPP_

#include <cstdint>

#include "vulkan_api.hpp"

namespace halo::vk {

// The streaming multiprocessors (VK_NV_shader_sm_builtins), compute units
// (VK_AMD_shader_core_properties) or shader cores
// (VK_ARM_shader_core_builtins) of |physical_device|; the host's online
// processors for a CPU device (lavapipe runs workgroups on host threads);
// else 1, the least any device has.
uint32_t count_compute_units(const InstanceFunctions& vki,
                             VkPhysicalDevice physical_device,
                             VkPhysicalDeviceType type) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_COMPUTE_UNITS_HPP_
