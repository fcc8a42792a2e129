// Vulkan executables: SPIR-V reflection, pipeline layouts and pipelines.
#include "executable.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "device.hpp"
#include "halo/sdk/device_limits.hpp"
#include "halo/sdk/versioned.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

constexpr char kCreate[] = "halo_executable_create";

void destroy_executable(halo_object_t* object) {
  Executable* executable = sdk::object_cast<Executable>(object);
  sdk::Host host = executable->device()->host;
  host.destroy(executable);
}

uint32_t entry_point_count(halo_executable_t* executable) {
  return Executable::cast(executable)->entry_point_count();
}

halo_status_t query_entry_point(halo_executable_t* executable,
                                uint32_t ordinal,
                                halo_entry_point_info_t* out_info) {
  Executable* self = Executable::cast(executable);
  sdk::Host host = self->device()->host;
  if (ordinal >= self->entry_point_count()) {
    return host.make_status(HALO_STATUS_OUT_OF_RANGE,
                            "halo_executable_query_entry_point: ordinal %u is "
                            "not below the executable's %u entry points",
                            ordinal, self->entry_point_count());
  }
  return sdk::copy_versioned(host, self->info(ordinal), out_info,
                             "halo_executable_query_entry_point", "out_info");
}

halo_status_t lookup_entry_point(halo_executable_t* executable,
                                 const char* name, uint32_t* out_ordinal) {
  Executable* self = Executable::cast(executable);
  for (uint32_t i = 0; i < self->entry_point_count(); ++i) {
    if (std::strcmp(self->entry_point(i).info.name, name) == 0) {
      *out_ordinal = i;
      return HALO_OK;
    }
  }
  return self->device()->host.make_status(
      HALO_STATUS_NOT_FOUND,
      "halo_executable_lookup_entry_point: name '%s' is no entry point of "
      "the executable",
      name);
}

}  // namespace

// entry_point_count is named vk:: because Executable's member of that name
// would hide it here.
const halo_executable_vtable_t Executable::kVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = &destroy_executable},
    .entry_point_count = &vk::entry_point_count,
    .query_entry_point = &query_entry_point,
    .lookup_entry_point = &lookup_entry_point,
};

Executable::Executable(Device* device) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      device_(device),
      entry_points_(sdk::HostAllocator<EntryPoint>(device->host)) {
  device->retain();
}

Executable::~Executable() {
  const DeviceFunctions& vkd = device_->vkd;
  VkDevice device = device_->device;
  for (EntryPoint& entry : entry_points_) {
    if (entry.pipeline) vkd.vkDestroyPipeline(device, entry.pipeline, nullptr);
    if (entry.layout) vkd.vkDestroyPipelineLayout(device, entry.layout, nullptr);
    if (entry.set_layout) {
      vkd.vkDestroyDescriptorSetLayout(device, entry.set_layout, nullptr);
    }
  }
  if (module_ != VK_NULL_HANDLE) {
    vkd.vkDestroyShaderModule(device, module_, nullptr);
  }
  device_->release();
}

halo_entry_point_info_t Executable::info(uint32_t ordinal) const noexcept {
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  const SpirvEntryPoint& entry = entry_points_[ordinal].info;
  std::snprintf(info.name, sizeof(info.name), "%s", entry.name);
  info.binding_count = entry.binding_count;
  info.constant_size = entry.constant_size;
  std::memcpy(info.workgroup_size, entry.workgroup_size,
              sizeof(info.workgroup_size));
  return info;
}

halo_status_t Executable::build_entry_point(EntryPoint* entry) noexcept {
  sdk::Host host = device_->host;
  const DeviceFunctions& vkd = device_->vkd;
  VkDevice device = device_->device;
  VkDescriptorSetLayoutBinding bindings[64] = {};
  for (uint32_t i = 0; i < entry->info.binding_count; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info = {};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = entry->info.binding_count;
  set_info.pBindings = bindings;
  HALO_VK_RETURN_IF_FAILED(host, "vkCreateDescriptorSetLayout",
                           vkd.vkCreateDescriptorSetLayout(
                               device, &set_info, nullptr, &entry->set_layout));
  VkPushConstantRange range = {};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.size = (entry->info.constant_size + 3u) & ~3u;
  VkPipelineLayoutCreateInfo layout_info = {};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &entry->set_layout;
  layout_info.pushConstantRangeCount = range.size != 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  HALO_VK_RETURN_IF_FAILED(
      host, "vkCreatePipelineLayout",
      vkd.vkCreatePipelineLayout(device, &layout_info, nullptr, &entry->layout));
  VkComputePipelineCreateInfo pipeline_info = {};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = module_;
  pipeline_info.stage.pName = entry->info.name;
  pipeline_info.layout = entry->layout;
  HALO_VK_RETURN_IF_FAILED(
      host, "vkCreateComputePipelines",
      vkd.vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info,
                                   nullptr, &entry->pipeline));
  return HALO_OK;
}

halo_status_t Executable::build(const halo_executable_params_t& params) {
  sdk::Host host = device_->host;
  SpirvEntryPoints points{sdk::HostAllocator<SpirvEntryPoint>(host)};
  ErrorText error;
  if (!reflect_spirv(host, params.data, params.data_size, &points, &error)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data is %s", kCreate, error.text);
  }
  const halo_device_capabilities_t& caps = device_->adapter->capabilities;
  for (const SpirvEntryPoint& point : points) {
    halo_entry_point_info_t info = {};
    info.binding_count = point.binding_count;
    info.constant_size = point.constant_size;
    std::memcpy(info.workgroup_size, point.workgroup_size,
                sizeof(info.workgroup_size));
    HALO_SDK_RETURN_IF_ERROR(
        sdk::check_entry_point_limits(host, point.name, info, caps));
  }
  // Vulkan reads the code as 32-bit words: copy bytes the caller did not
  // align.
  std::vector<uint32_t, sdk::HostAllocator<uint32_t>> aligned{
      sdk::HostAllocator<uint32_t>(host)};
  const uint32_t* code = static_cast<const uint32_t*>(params.data);
  if (reinterpret_cast<uintptr_t>(params.data) % alignof(uint32_t) != 0) {
    aligned.resize(params.data_size / 4);
    std::memcpy(aligned.data(), params.data, params.data_size);
    code = aligned.data();
  }
  VkShaderModuleCreateInfo module_info = {};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = params.data_size;
  module_info.pCode = code;
  HALO_VK_RETURN_IF_FAILED(host, "vkCreateShaderModule",
                           device_->vkd.vkCreateShaderModule(
                               device_->device, &module_info, nullptr,
                               &module_));
  entry_points_.reserve(points.size());
  for (const SpirvEntryPoint& point : points) {
    entry_points_.push_back(EntryPoint{point});
    HALO_SDK_RETURN_IF_ERROR(build_entry_point(&entry_points_.back()));
  }
  return HALO_OK;
}

halo_status_t Executable::create(Device* device,
                                 const halo_executable_params_t& params,
                                 halo_executable_t** out_executable) noexcept {
  sdk::Host host = device->host;
  if (std::strcmp(params.format, "spirv") != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->format '%s' is not one of the "
                            "device's executable formats (spirv)",
                            kCreate, params.format);
  }
  if (params.data == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->data is NULL", kCreate);
  }
  return sdk::guard(host, [&]() -> halo_status_t {
    Executable* executable = host.make<Executable>(device);
    halo_status_t status =
        sdk::guard(host, [&] { return executable->build(params); });
    if (status != HALO_OK) {
      host.destroy(executable);
      return status;
    }
    *out_executable = reinterpret_cast<halo_executable_t*>(executable);
    return HALO_OK;
  });
}

}  // namespace halo::vk
