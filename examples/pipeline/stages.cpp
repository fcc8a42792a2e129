// The device stages' kernels, bindings and constants.
#include "stages.hpp"

namespace pipeline {
namespace {

constexpr uint32_t kWorkgroupSize = 64;  // every form of the CTS's kernels

// The saxpy and multiply_add kernels' constants (cts/testdata/README.md).
struct SaxpyConstants {
  float a;
  uint32_t n;
};
struct MultiplyAddConstants {
  uint32_t n;
};

template <typename Constants>
halo::CommandBuffer record(const StageDevice& device,
                           std::initializer_list<halo_buffer_binding_t> bindings,
                           const Constants& constants, uint32_t elements) {
  halo::CommandBuffer commands =
      device.device.create_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  commands.begin()
      .dispatch(device.kernel, 0, {(elements + kWorkgroupSize - 1) / kWorkgroupSize}, bindings,
                constants)
      .end();
  return commands;
}

halo_buffer_binding_t array(const halo::Buffer& buffer, uint64_t offset,
                            const FrameLayout& layout) {
  return halo::bind(buffer, offset, layout.array_bytes);
}

}  // namespace

std::vector<StageSpec> device_stages() {
  return {
      {"filter", "saxpy", {"vulkan", "cuda", "opencl", "cpu"},
       [](const StageDevice& device, const halo::Buffer& buffer, const FrameLayout& layout) {
         return record(device,
                       {array(buffer, layout.y_offset, layout), array(buffer, layout.x_offset, layout)},
                       SaxpyConstants{kScale, layout.elements}, layout.elements);
       },
       [](const FrameLayout& layout) { return layout.y_offset; }},
      {"combine", "multiply_add", {"opencl", "cuda", "vulkan", "cpu"},
       [](const StageDevice& device, const halo::Buffer& buffer, const FrameLayout& layout) {
         return record(device,
                       {array(buffer, layout.out_offset, layout), array(buffer, layout.y_offset, layout),
                        array(buffer, layout.x_offset, layout), array(buffer, layout.x_offset, layout)},
                       MultiplyAddConstants{layout.elements}, layout.elements);
       },
       [](const FrameLayout& layout) { return layout.out_offset; }},
      {"blend", "saxpy", {"cuda", "cpu", "vulkan", "opencl"},
       [](const StageDevice& device, const halo::Buffer& buffer, const FrameLayout& layout) {
         return record(device,
                       {array(buffer, layout.out_offset, layout), array(buffer, layout.x_offset, layout)},
                       SaxpyConstants{kScale, layout.elements}, layout.elements);
       },
       [](const FrameLayout& layout) { return layout.out_offset; }},
  };
}

}  // namespace pipeline
