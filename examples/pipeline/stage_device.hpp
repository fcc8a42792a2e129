// The devices the pipeline's two device stages run on: one that can run
// the stage's kernel (a file of a format it lists), preferring plugins in
// the order given, and what it can share with the host.
#ifndef HALO_PIPELINE_STAGE_DEVICE_HPP_
#define HALO_PIPELINE_STAGE_DEVICE_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "halo/halo.hpp"

namespace pipeline {

struct StageDevice {
  std::string plugin;
  std::string name;
  halo::Device device;
  halo_device_capabilities_t capabilities{};
  // The stage's kernel, loaded from the format named here.
  std::string format;
  halo::Executable kernel;
  // Imports the application's host memory as a buffer (HOST_ALLOCATION):
  // the frames are then shared with it, with no copy.
  bool shares_host_memory = false;
  uint64_t host_allocation_alignment = 0;
  // Host-visible memory for the buffers of a device that does not share.
  halo_memory_type_t staging_memory = 0;
};

// Opens the first device of |registry| that offers queues, dispatch and
// host-visible memory and has |kernel|.<format> in |kernel_folder|, trying
// the plugins of |preference| in order and then any other, and the devices
// of |taken| (registry indices) last. |out_index| is the device's index in
// the registry. Throws halo::Error naming the kernel and folder when no
// device can run it.
StageDevice open_stage_device(const halo::Registry& registry, const std::string& kernel,
                              const std::string& kernel_folder,
                              const std::vector<std::string>& preference,
                              const std::vector<long>& taken, long* out_index);

// <folder of this program>/../share/halo/cts/testdata/kernels: the CTS's
// kernels, beside the program in a build tree and when installed.
std::string default_kernel_folder();

}  // namespace pipeline

#endif  // HALO_PIPELINE_STAGE_DEVICE_HPP_
