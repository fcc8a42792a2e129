// The pipeline's device stages, in order: what each runs and which array
// of the frame it writes. decode and check, on the host, sit either side.
//   filter   y   = a * x + y     (saxpy)
//   combine  out = y + x * x     (multiply_add)
//   blend    out = a * x + out   (saxpy)
#ifndef HALO_PIPELINE_STAGES_HPP_
#define HALO_PIPELINE_STAGES_HPP_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frames.hpp"
#include "halo/halo.hpp"
#include "stage_device.hpp"

namespace pipeline {

struct StageSpec {
  std::string name;
  std::string kernel;
  // Plugins tried for the stage, in order (then any other).
  std::vector<std::string> plugins;
  // Records the stage's dispatch over the frame in |buffer| (the frame's
  // memory as |device| reaches it) into a reusable command buffer.
  std::function<halo::CommandBuffer(const StageDevice& device, const halo::Buffer& buffer,
                                    const FrameLayout& layout)>
      record;
  // Where the array the stage writes starts in the frame.
  uint64_t (*written)(const FrameLayout& layout);
};

// The three device stages, each preferring a different plugin first.
std::vector<StageSpec> device_stages();

}  // namespace pipeline

#endif  // HALO_PIPELINE_STAGES_HPP_
