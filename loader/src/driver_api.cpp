// The driver's public C API.
#include <vector>

#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "device_creation.hpp"
#include "device_enumeration.hpp"
#include "halo/driver.h"
#include "object_refs.hpp"
#include "plugin_status.hpp"

using namespace halo::loader;

namespace {

constexpr uint32_t kDriverVtableSize = abi_1_0_size<halo_driver_vtable_t>;

halo_status_t check_driver(halo_driver_t* driver, const char* function) {
  return check_object(driver, HALO_OBJECT_TYPE_DRIVER, kDriverVtableSize,
                      function, "driver");
}

}  // namespace

extern "C" {

void halo_driver_retain(halo_driver_t* driver) {
  retain_checked(as_object(driver), "halo_driver_retain");
}

void halo_driver_release(halo_driver_t* driver) {
  release_checked(as_object(driver), "halo_driver_release");
}

halo_status_t halo_driver_query_info(halo_driver_t* driver,
                                     halo_driver_info_t* out_info) try {
  static const char kFunction[] = "halo_driver_query_info";
  HALO_RETURN_IF_ERROR(check_driver(driver, kFunction));
  if (out_info == nullptr) return null_argument(kFunction, "out_info");
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, vtable_of<halo_driver_vtable_t>(driver)->query_info, driver,
      &info));
  info.name[sizeof(info.name) - 1] = '\0';
  info.version[sizeof(info.version) - 1] = '\0';
  info.description[sizeof(info.description) - 1] = '\0';
  info.struct_size = sizeof(info);
  return copy_out(info, out_info, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_driver_device_count(halo_driver_t* driver,
                                       size_t* out_count) try {
  static const char kFunction[] = "halo_driver_device_count";
  HALO_RETURN_IF_ERROR(check_driver(driver, kFunction));
  if (out_count == nullptr) return null_argument(kFunction, "out_count");
  return count_devices(driver, kFunction, out_count);
}
HALO_API_CATCH_ALL

halo_status_t halo_driver_query_device_info(halo_driver_t* driver, size_t index,
                                            halo_device_info_t* out_info) try {
  static const char kFunction[] = "halo_driver_query_device_info";
  HALO_RETURN_IF_ERROR(check_driver(driver, kFunction));
  if (out_info == nullptr) return null_argument(kFunction, "out_info");
  std::vector<halo_device_info_t> infos;
  HALO_RETURN_IF_ERROR(enumerate_sorted_devices(driver, kFunction, &infos));
  if (index >= infos.size()) {
    return halo_status_format(HALO_STATUS_OUT_OF_RANGE,
                              "%s: index %zu is past the %zu devices",
                              kFunction, index, infos.size());
  }
  infos[index].struct_size = sizeof(halo_device_info_t);
  return copy_out(infos[index], out_info, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_driver_create_device(halo_driver_t* driver,
                                        halo_device_id_t device_id,
                                        const halo_device_params_t* params,
                                        halo_device_t** out_device) try {
  static const char kFunction[] = "halo_driver_create_device";
  HALO_RETURN_IF_ERROR(check_driver(driver, kFunction));
  return create_device(driver, device_id, params, out_device, kFunction);
}
HALO_API_CATCH_ALL

}  // extern "C"
