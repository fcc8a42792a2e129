#include "device_creation.hpp"

#include <cstddef>

#include "check.hpp"
#include "device_side_waits.hpp"
#include "plugin_objects.hpp"
#include "plugin_status.hpp"

namespace halo::loader {

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t* params,
                            halo_device_t** out_device, const char* function) {
  if (out_device == nullptr) return null_argument(function, "out_device");
  *out_device = nullptr;
  halo_device_params_t defaults = {};
  defaults.struct_size = sizeof(defaults);
  if (params == nullptr) {
    params = &defaults;
  } else if (params->struct_size < sizeof(uint32_t)) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->struct_size %u is too small",
                              function, params->struct_size);
  }
  // A caller whose struct ends before flags has set none.
  if (params->struct_size >=
      offsetof(halo_device_params_t, flags) + sizeof(params->flags)) {
    HALO_RETURN_IF_ERROR(check_known_flags(params->flags,
                                           HALO_DEVICE_PARAMS_FLAGS_KNOWN,
                                           function, "params->flags"));
  }
  const auto* vtable = vtable_of<halo_driver_vtable_t>(driver);
  HALO_RETURN_IF_ERROR(call_plugin(function, vtable->create_device, driver,
                                   device_id, params, out_device));
  HALO_RETURN_IF_ERROR(adopt_created(
      function, reinterpret_cast<const void*>(vtable->create_device),
      HALO_OBJECT_TYPE_DEVICE, driver, out_device));
  note_created_device(*out_device);
  return nullptr;
}

}  // namespace halo::loader
