// What a physical device offers for external handles (halo/external.h,
// ABI 1.3): which extensions it has, which handle types its buffers and
// timeline semaphores export and import as, and the device extensions the
// plugin enables for them.
#ifndef HALO_VULKAN_EXTERNAL_SUPPORT_HPP_
#define HALO_VULKAN_EXTERNAL_SUPPORT_HPP_

#include <cstdint>

#include "vulkan_api.hpp"

namespace halo::vk {

struct Adapter;

// The usage of every VkBuffer the plugin makes (buffer.cpp says why), which
// the external-memory queries must name too.
inline constexpr VkBufferUsageFlags kBufferUsage =
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

struct ExternalSupport {
  // The device extensions offered (and so enabled on every VkDevice).
  bool memory_fd = false;      // VK_KHR_external_memory_fd
  bool memory_host = false;    // VK_EXT_external_memory_host
  bool semaphore_fd = false;   // VK_KHR_external_semaphore_fd
  // OPAQUE_FD memory of the plugin's buffers must be a dedicated
  // allocation (VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT), on export
  // and on import alike.
  bool opaque_fd_dedicated_only = false;
};

// Fills |adapter->external| and the ABI 1.3 members of
// |adapter->capabilities| (export and import types, host allocation
// alignment). Reads adapter->physical_device and adapter->limits.
void describe_external(const InstanceFunctions& vki, Adapter* adapter) noexcept;

// The most device extensions external_extensions writes.
inline constexpr uint32_t kMaxExternalExtensions = 3;

// Writes the names of the device extensions to enable for |support| into
// |names| (room for kMaxExternalExtensions) and returns their count.
uint32_t external_extensions(const ExternalSupport& support,
                             const char** names) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_EXTERNAL_SUPPORT_HPP_
