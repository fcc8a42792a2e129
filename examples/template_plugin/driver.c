/* driver.c: the template's driver: its info, the devices it enumerates and their
 * creation (halo/driver.h).
 *
 * The template has one device, "template device". A real driver opens its native
 * API in template_driver_create and enumerates what that API reports. */
#include "template_plugin.h"

/* The template's only device has id 1: ids are the driver's own, stable while
 * it lives, and 0 is never valid. */
#define TEMPLATE_DEVICE_ID ((halo_device_id_t)1)

/* ---- Devices ------------------------------------------------------------------ */

/* How many devices the driver has right now. VENDOR: ask your native API (count
 * only those your plugin can drive). */
static size_t driver_device_count(template_driver_t* driver) {
  (void)driver;
  return 1;
}

/* Fills |out_info| completely for device |index| (below driver_device_count).
 * VENDOR: your device's type, name, PCI vendor and device ids, and a UUID that
 * stays the same across processes and reboots (Vulkan's deviceUUID, say). */
static void driver_describe_device(template_driver_t* driver, size_t index,
                                   halo_device_info_t* out_info) {
  static const uint8_t kUuid[16] = "halo-template-01";
  (void)driver;
  memset(out_info, 0, sizeof(*out_info));
  out_info->struct_size = sizeof(*out_info);
  out_info->type = HALO_DEVICE_TYPE_OTHER;
  out_info->device_id = TEMPLATE_DEVICE_ID + index;
  template_copy_string(out_info->name, sizeof(out_info->name), "template device");
  template_copy_string(out_info->vendor, sizeof(out_info->vendor), "halo template");
  template_copy_string(out_info->driver_version, sizeof(out_info->driver_version),
                       TEMPLATE_PLUGIN_VERSION);
  memcpy(out_info->uuid, kUuid, sizeof(kUuid));
  /* VENDOR (ABI 1.2): your native API and its version ("Vulkan 1.3.255"),
   * and the units your device runs workgroups on. The template runs on the
   * host, on one worker thread. */
  template_copy_string(out_info->native_api, sizeof(out_info->native_api), "host");
  out_info->compute_units = 1;
}

/* ---- Vtable ------------------------------------------------------------------- */

/* Runs when the last reference goes: every device holds one, so none is left.
 * VENDOR: close your native API here. */
static void driver_destroy(halo_object_t* object) {
  template_driver_t* driver = (template_driver_t*)object;
  template_free(driver->host, driver);
}

/* VENDOR: a description line with your native API's version. */
static halo_status_t driver_query_info(halo_driver_t* base, halo_driver_info_t* out_info) {
  (void)base;
  halo_driver_info_t info;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  template_copy_string(info.name, sizeof(info.name), TEMPLATE_PLUGIN_NAME);
  template_copy_string(info.version, sizeof(info.version), TEMPLATE_PLUGIN_VERSION);
  template_copy_string(info.description, sizeof(info.description),
                       "halo template plugin: the SDK's host semaphores and queue");
  template_copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

/* Writes up to |capacity| infos into |out_infos|, one every |info_stride| bytes
 * (the caller's sizeof(halo_device_info_t), which may be older or newer than
 * this plugin's), each filled up to min(info_stride, sizeof) bytes with
 * struct_size set to what was written; stores the total in |out_count|. libhalo
 * has checked the arguments. One call is one consistent snapshot. */
static halo_status_t driver_enumerate_devices(halo_driver_t* base, size_t capacity,
                                              size_t info_stride,
                                              halo_device_info_t* out_infos,
                                              size_t* out_count) {
  template_driver_t* driver = (template_driver_t*)base;
  const size_t count = driver_device_count(driver);
  const uint32_t size = info_stride > UINT32_MAX ? UINT32_MAX : (uint32_t)info_stride;
  for (size_t i = 0; out_infos != NULL && i < count && i < capacity; ++i) {
    halo_device_info_t info;
    driver_describe_device(driver, i, &info);
    template_copy_out((char*)out_infos + i * info_stride, size, &info, sizeof(info));
  }
  *out_count = count;
  return HALO_OK;
}

/* Creates the device whose id is |device_id|; |params| (may be NULL) has only
 * flags libhalo knows, and ABI 1.0 defines none. VENDOR: read newer members of
 * |params| only where its struct_size covers them. */
static halo_status_t driver_create_device(halo_driver_t* base, halo_device_id_t device_id,
                                          const halo_device_params_t* params,
                                          halo_device_t** out_device) {
  template_driver_t* driver = (template_driver_t*)base;
  (void)params;
  *out_device = NULL;
  const size_t count = driver_device_count(driver);
  for (size_t i = 0; i < count; ++i) {
    halo_device_info_t info;
    driver_describe_device(driver, i, &info);
    if (info.device_id == device_id) {
      return template_device_create(driver, &info, out_device);
    }
  }
  return driver->host->status_format(
      HALO_STATUS_NOT_FOUND,
      "halo_driver_create_device: device_id %llu names no device of the %s driver",
      (unsigned long long)device_id, TEMPLATE_PLUGIN_NAME);
}

static const halo_driver_vtable_t kDriverVtable = {
    .object = {.struct_size = sizeof(halo_driver_vtable_t),
               .type = HALO_OBJECT_TYPE_DRIVER,
               .destroy = driver_destroy},
    .query_info = driver_query_info,
    .enumerate_devices = driver_enumerate_devices,
    .create_device = driver_create_device,
};

/* ---- Creation ----------------------------------------------------------------- */

/* The plugin's initialisation (the descriptor's create_driver). VENDOR: open your
 * native API here. When it is missing (no kernel driver, no hardware), return
 * UNAVAILABLE with the reason: the loader then skips this plugin alone and shows
 * the reason in halo-info and HALO_LOADER_DEBUG. */
halo_status_t template_driver_create(const halo_host_interface_t* host,
                                     halo_driver_t** out_driver) {
  *out_driver = NULL;
  template_driver_t* driver = template_allocate(host, sizeof(*driver));
  if (driver == NULL) return template_out_of_memory(host, "create_driver");
  memset(driver, 0, sizeof(*driver));
  template_object_init(&driver->object, &kDriverVtable);
  driver->host = host;
  *out_driver = (halo_driver_t*)driver;
  return HALO_OK;
}
