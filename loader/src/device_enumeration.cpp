#include "device_enumeration.hpp"

#include <algorithm>
#include <cstring>

#include "check.hpp"
#include "plugin_status.hpp"

namespace halo::loader {

int device_type_rank(uint32_t type) {
  switch (type) {
    case HALO_DEVICE_TYPE_GPU_DISCRETE: return 0;
    case HALO_DEVICE_TYPE_GPU_INTEGRATED: return 1;
    case HALO_DEVICE_TYPE_GPU_VIRTUAL: return 2;
    case HALO_DEVICE_TYPE_ACCELERATOR: return 3;
    case HALO_DEVICE_TYPE_CPU: return 5;
    default: return 4;
  }
}

halo_status_t count_devices(halo_driver_t* driver, const char* function,
                            size_t* out_count) {
  const auto* vtable = vtable_of<halo_driver_vtable_t>(driver);
  size_t count = 0;
  HALO_RETURN_IF_ERROR(call_plugin(function, vtable->enumerate_devices, driver,
                                   0, sizeof(halo_device_info_t), nullptr,
                                   &count));
  if (count > kMaxDevicesPerDriver) {
    return plugin_fault(reinterpret_cast<const void*>(vtable->enumerate_devices),
                        function, "reports %zu devices, more than the %zu "
                        "libhalo accepts from one driver",
                        count, kMaxDevicesPerDriver);
  }
  *out_count = count;
  return nullptr;
}

halo_status_t enumerate_sorted_devices(halo_driver_t* driver,
                                       const char* function,
                                       std::vector<halo_device_info_t>* out) {
  const auto* vtable = vtable_of<halo_driver_vtable_t>(driver);
  // The count may grow between the two calls (hot-plug): retry until the
  // snapshot fits.
  for (int attempt = 0; attempt < 8; ++attempt) {
    size_t count = 0;
    HALO_RETURN_IF_ERROR(count_devices(driver, function, &count));
    std::vector<halo_device_info_t> infos(count);
    for (auto& info : infos) info.struct_size = sizeof(info);
    size_t filled = 0;
    HALO_RETURN_IF_ERROR(call_plugin(function, vtable->enumerate_devices,
                                     driver, infos.size(),
                                     sizeof(halo_device_info_t), infos.data(),
                                     &filled));
    if (filled > infos.size()) continue;
    infos.resize(filled);
    for (auto& info : infos) info.name[sizeof(info.name) - 1] = '\0';
    std::stable_sort(infos.begin(), infos.end(),
                     [](const halo_device_info_t& a, const halo_device_info_t& b) {
                       int rank_a = device_type_rank(a.type);
                       int rank_b = device_type_rank(b.type);
                       if (rank_a != rank_b) return rank_a < rank_b;
                       return std::strcmp(a.name, b.name) < 0;
                     });
    *out = std::move(infos);
    return nullptr;
  }
  return halo_status_format(HALO_STATUS_UNAVAILABLE,
                            "%s: the device list kept changing", function);
}

}  // namespace halo::loader
