/* Drivers: one per loaded plugin; enumerates devices and creates them. */
#ifndef HALO_DRIVER_H_
#define HALO_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/device.h"
#include "halo/object.h"
#include "halo/status.h"

typedef struct halo_driver_info_t {
  uint32_t struct_size;
  uint32_t reserved0;
  /* The plugin's name ("cpu", "vulkan", …). */
  char name[64];
  /* The plugin's own version string. */
  char version[64];
  /* A line for humans, e.g. the native API version. */
  char description[256];
  /* --- ABI 1.0 ends here. --- */
} halo_driver_info_t;

typedef struct halo_device_params_t {
  uint32_t struct_size;
  uint32_t reserved0;
  /* Bits of HALO_DEVICE_PARAMS_FLAGS_KNOWN only. */
  uint64_t flags;
  /* --- ABI 1.0 ends here. --- */
} halo_device_params_t;

/* Every bit of halo_device_params_t.flags defined: none in ABI 1.0. Creating
 * a device refuses any other bit with INVALID_ARGUMENT, so that a bit can be
 * given a meaning later. A new flag is appended here and to this mask. */
#define HALO_DEVICE_PARAMS_FLAGS_KNOWN ((uint64_t)0)

typedef struct halo_driver_vtable_t {
  halo_object_vtable_t object;
  halo_status_t (*query_info)(halo_driver_t* driver,
                              halo_driver_info_t* out_info);
  /* Writes up to |capacity| device infos, one every |info_stride| bytes of
   * |out_infos| (each filled up to min(info_stride, the plugin's sizeof) with
   * struct_size set to that), and stores the total number of devices in
   * |out_count|. |capacity| 0 with NULL |out_infos| asks for the count only.
   * One call is one consistent snapshot. */
  halo_status_t (*enumerate_devices)(halo_driver_t* driver, size_t capacity,
                                     size_t info_stride,
                                     halo_device_info_t* out_infos,
                                     size_t* out_count);
  /* Returns NOT_FOUND when no enumerated device has |device_id|. */
  halo_status_t (*create_device)(halo_driver_t* driver,
                                 halo_device_id_t device_id,
                                 const halo_device_params_t* params,
                                 halo_device_t** out_device);
  /* --- ABI 1.0 ends here. --- */
} halo_driver_vtable_t;

HALO_API void halo_driver_retain(halo_driver_t* driver);
HALO_API void halo_driver_release(halo_driver_t* driver);

/* Fills |out_info| (caller sets struct_size). Borrows |driver|. */
HALO_API HALO_MUST_USE halo_status_t halo_driver_query_info(
    halo_driver_t* driver, halo_driver_info_t* out_info);

/* Stores the number of devices in |out_count|, enumerated now. Borrows
 * |driver|. Thread-safe. Returns INTERNAL naming the plugin when it reports
 * more than 65536 devices (libhalo's bound for one driver). */
HALO_API HALO_MUST_USE halo_status_t halo_driver_device_count(
    halo_driver_t* driver, size_t* out_count);

/* Fills |out_info| (caller sets struct_size) for device |index| of a fresh
 * enumeration ordered by type (discrete GPU first, CPU last), then name.
 * Returns OUT_OF_RANGE for an index past the end; INTERNAL naming the plugin
 * when it reports more than 65536 devices. Borrows |driver|. */
HALO_API HALO_MUST_USE halo_status_t halo_driver_query_device_info(
    halo_driver_t* driver, size_t index, halo_device_info_t* out_info);

/* Creates the device |device_id| (from its info); a new reference in
 * |out_device|. |params| may be NULL for defaults. Returns NOT_FOUND for an
 * unknown id; INVALID_ARGUMENT for |params->flags| bits outside
 * HALO_DEVICE_PARAMS_FLAGS_KNOWN; INTERNAL naming the plugin when it hands
 * over a device that breaks the ABI (see object.h). Borrows |driver|.
 * Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_driver_create_device(
    halo_driver_t* driver, halo_device_id_t device_id, const
    halo_device_params_t* params, halo_device_t** out_device);

#endif /* HALO_DRIVER_H_ */
