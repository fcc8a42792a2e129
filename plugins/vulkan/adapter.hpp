// An adapter: one Vulkan physical device the driver offers, described once
// when the driver starts (info, capabilities and the limits the plugin
// enforces), or the reason it is not offered.
#ifndef HALO_VULKAN_ADAPTER_HPP_
#define HALO_VULKAN_ADAPTER_HPP_

#include <cstddef>
#include <cstdint>

#include "external_support.hpp"
#include "halo/device.h"
#include "vulkan_api.hpp"

namespace halo::vk {

// Most bindings and constant bytes a dispatch takes: the command buffer
// records them in arrays of these sizes, so the capabilities never report
// more (adapter.cpp), and executables refuse more.
inline constexpr uint32_t kMaxBindings = 64;
inline constexpr uint32_t kMaxConstantBytes = 4096;

// The limits of a physical device that the plugin checks or relies on.
// Those a caller sees too (workgroup sizes and counts, bindings, constants)
// live only in Adapter::capabilities, the one place every check reads.
struct AdapterLimits {
  uint64_t max_timeline_difference = 0;
  uint64_t min_storage_offset_alignment = 1;
  uint64_t non_coherent_atom_size = 1;
  uint64_t min_memory_map_alignment = 1;
  uint32_t max_storage_buffer_range = 0;
  uint32_t max_bound_descriptor_sets = 0;
};

struct Adapter {
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  uint32_t api_version = 0;
  uint32_t queue_family = 0;
  halo_device_info_t info = {};
  halo_device_capabilities_t capabilities = {};
  AdapterLimits limits;
  VkPhysicalDeviceMemoryProperties memory = {};
  // External handles (external_support.hpp).
  ExternalSupport external;
  // The driver's vkWaitSemaphores(ANY) over several semaphores polls
  // instead of sleeping (Mesa's lavapipe, which emulates timelines), so the
  // plugin waits on one semaphore at a time, in slices (wait_any in
  // wake.hpp). Off under the validation layer (adapter.cpp says why);
  // HALO_VULKAN_SLICED_WAITS=1 or =0 forces it on or off.
  bool sliced_waits = false;
  // The notification thread polls the end of work in flight, and the
  // application's next hand-off, for a while before it sleeps (Queue::poll):
  // on GPUs, where a batch's own signal then shows its end without a second
  // one that wakes a second thread. Not on CPU devices, whose work runs on
  // the cores a polling thread would take. HALO_VULKAN_COMPLETION_POLL=1 or
  // =0 forces it on or off.
  bool polls_completion = false;
};

// Describes |physical_device| as device |id| (|validating|: the instance
// has the validation layer). Returns true when the plugin can use it;
// otherwise writes why not ("<name> lacks timeline semaphores") into
// |reason| (|capacity| bytes) and returns false.
bool describe_adapter(const InstanceFunctions& vki,
                      VkPhysicalDevice physical_device, halo_device_id_t id,
                      bool validating, Adapter* out_adapter, char* reason,
                      size_t capacity) noexcept;

// Whether |physical_device| offers device extension |name|. False when the
// list cannot be read.
bool has_device_extension(const InstanceFunctions& vki,
                          VkPhysicalDevice physical_device,
                          const char* name) noexcept;

// Returns the halo memory type bits of Vulkan |flags|.
halo_memory_type_t memory_type_bits(VkMemoryPropertyFlags flags) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_ADAPTER_HPP_
