// Picking and opening the devices of the pipeline's stages.
#include "stage_device.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>

namespace pipeline {
namespace {

// The first of the device's formats with a kernel file, and its bytes.
bool find_kernel(const halo_device_capabilities_t& caps, const std::string& folder,
                 const std::string& kernel, std::string* out_format,
                 std::vector<std::byte>* out_bytes) {
  for (const std::string& format : halo::executable_formats(caps)) {
    const std::string path = folder + "/" + kernel + "." + format;
    if (!std::filesystem::exists(path)) continue;
    *out_bytes = halo::read_file(path);
    *out_format = format;
    return true;
  }
  return false;
}

bool usable(const halo_device_capabilities_t& caps) {
  const halo_device_features_t needed = HALO_DEVICE_FEATURE_QUEUES |
                                        HALO_DEVICE_FEATURE_DISPATCH |
                                        HALO_DEVICE_FEATURE_BUFFERS |
                                        HALO_DEVICE_FEATURE_COMMAND_BUFFERS;
  return (caps.features & needed) == needed &&
         (caps.memory_types & HALO_MEMORY_TYPE_HOST_VISIBLE) != 0;
}

// The order devices are tried in: those of |preference| first, in its
// order, then the rest in registry order.
std::vector<size_t> candidate_order(const halo::Registry& registry,
                                    const std::vector<halo::DeviceEntry>& entries,
                                    const std::vector<std::string>& preference) {
  auto rank = [&](size_t index) {
    const std::string plugin = registry.driver(entries[index].driver_index).info().name;
    auto found = std::find(preference.begin(), preference.end(), plugin);
    return static_cast<size_t>(found - preference.begin());
  };
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rank(a) < rank(b); });
  return order;
}

}  // namespace

StageDevice open_stage_device(const halo::Registry& registry, const std::string& kernel,
                              const std::string& kernel_folder,
                              const std::vector<std::string>& preference,
                              const std::vector<long>& taken, long* out_index) {
  const std::vector<halo::DeviceEntry> entries = registry.devices();
  std::vector<size_t> order = candidate_order(registry, entries, preference);
  // Devices taken already go last: shared only when nothing else can run
  // the kernel.
  std::stable_partition(order.begin(), order.end(), [&](size_t index) {
    return std::find(taken.begin(), taken.end(), static_cast<long>(index)) == taken.end();
  });
  for (size_t index : order) {
    StageDevice stage;
    stage.device = registry.create_device(index);
    stage.capabilities = stage.device.capabilities();
    std::vector<std::byte> bytes;
    if (!usable(stage.capabilities) ||
        !find_kernel(stage.capabilities, kernel_folder, kernel, &stage.format, &bytes)) {
      continue;
    }
    stage.plugin = registry.driver(entries[index].driver_index).info().name;
    stage.name = entries[index].info.name;
    stage.kernel = stage.device.create_executable(stage.format, bytes);
    stage.shares_host_memory =
        (stage.capabilities.buffer_import_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) != 0;
    stage.host_allocation_alignment = stage.capabilities.host_allocation_alignment;
    stage.staging_memory = halo::mappable_memory_type(stage.capabilities);
    *out_index = static_cast<long>(index);
    return stage;
  }
  throw halo::Error(HALO_STATUS_NOT_FOUND,
                    "no device with queues, dispatch and host-visible memory has " + kernel +
                        ".<format> in " + kernel_folder);
}

std::string default_kernel_folder() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path folder =
      self.parent_path() / ".." / "share" / "halo" / "cts" / "testdata" / "kernels";
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(folder, error);
  return (error ? folder : resolved).string();
}

}  // namespace pipeline
