#include "compute_units.hpp"

#include <unistd.h>

#include "adapter.hpp"

namespace halo::vk {
namespace {

// Reads the property struct |vendor| (its sType set), which may be chained
// only when its extension is offered.
void read_properties(const InstanceFunctions& vki,
                     VkPhysicalDevice physical_device, void* vendor) {
  VkPhysicalDeviceProperties2 properties = {};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = vendor;
  vki.vkGetPhysicalDeviceProperties2(physical_device, &properties);
}

uint32_t vendor_compute_units(const InstanceFunctions& vki,
                              VkPhysicalDevice physical_device) {
  if (has_device_extension(vki, physical_device,
                    VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv = {};
    nv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    read_properties(vki, physical_device, &nv);
    return nv.shaderSMCount;
  }
  if (has_device_extension(vki, physical_device,
                    VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderCorePropertiesAMD amd = {};
    amd.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD;
    read_properties(vki, physical_device, &amd);
    return amd.shaderEngineCount * amd.shaderArraysPerEngineCount *
           amd.computeUnitsPerShaderArray;
  }
  if (has_device_extension(vki, physical_device,
                    VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {};
    arm.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM;
    read_properties(vki, physical_device, &arm);
    return arm.shaderCoreCount;
  }
  return 0;
}

}  // namespace

uint32_t count_compute_units(const InstanceFunctions& vki,
                             VkPhysicalDevice physical_device,
                             VkPhysicalDeviceType type) noexcept {
  if (type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    return processors > 0 ? static_cast<uint32_t>(processors) : 1;
  }
  uint32_t units = 0;
  try {
    units = vendor_compute_units(vki, physical_device);
  } catch (...) {
    // Out of memory for the extension list: report the least.
  }
  return units > 0 ? units : 1;
}

}  // namespace halo::vk
