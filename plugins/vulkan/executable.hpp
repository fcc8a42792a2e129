// The vulkan executable: a SPIR-V module with one compute pipeline per
// GLCompute entry point. Each pipeline's layout is descriptor set 0 with
// storage buffers 0..k-1 and one push-constant range of the entry point's
// constant size, as halo binds dispatches.
#ifndef HALO_VULKAN_EXECUTABLE_HPP_
#define HALO_VULKAN_EXECUTABLE_HPP_

#include <vector>

#include "halo/executable.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "spirv_reader.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;

class Executable {
 public:
  struct EntryPoint {
    SpirvEntryPoint info;
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
  };

  halo_object_t header;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_executable_vtable_t kVtable;

  // Creates an executable of |params| on |device| (retained). Returns a new
  // reference in |out_executable|; INVALID_ARGUMENT with the reason for an
  // unknown format or a malformed or unsupported module; the failed Vulkan
  // call's status otherwise.
  static halo_status_t create(Device* device,
                              const halo_executable_params_t& params,
                              halo_executable_t** out_executable) noexcept;

  // Returns the vulkan executable behind |executable|, or NULL.
  static Executable* from(halo_executable_t* executable) noexcept {
    return sdk::object_from<Executable>(executable);
  }
  static Executable* cast(halo_executable_t* executable) noexcept {
    return sdk::object_cast<Executable>(executable);
  }

  uint32_t entry_point_count() const noexcept {
    return static_cast<uint32_t>(entry_points_.size());
  }
  const EntryPoint& entry_point(uint32_t ordinal) const noexcept {
    return entry_points_[ordinal];
  }
  // The halo description of entry point |ordinal| (< entry_point_count()).
  halo_entry_point_info_t info(uint32_t ordinal) const noexcept;
  Device* device() const noexcept { return device_; }
  halo_object_t* object() noexcept { return &header; }

  // Public for the host allocator; use create.
  explicit Executable(Device* device) noexcept;
  ~Executable();

 private:
  halo_status_t build(const halo_executable_params_t& params);
  halo_status_t build_entry_point(EntryPoint* entry_point) noexcept;

  Device* device_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  std::vector<EntryPoint, sdk::HostAllocator<EntryPoint>> entry_points_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_EXECUTABLE_HPP_
