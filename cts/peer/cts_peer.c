/* cts_peer.c: the reference peer, a host-only plugin that ships with
 * halo-cts.
 *
 * The interop.* cases need the device of a second plugin. A vendor who
 * certifies alone has none installed, and without this plugin every interop
 * case would skip, so a plugin that calls every foreign semaphore
 * incompatible would pass. halo-cts loads this one beside the plugin under
 * test when no other plugin is loaded (cts/README.md, --peer).
 *
 * It offers one device with the SDK's host semaphores (shared as host
 * timelines, HOST_TIMELINE_FD, and imported for libhalo's device-side
 * waits) and the SDK's queue core, which runs submissions without command
 * buffers (waits and signals):
 * all that the interop cases ask of a peer, and nothing of its own that
 * could be wrong. Buffers, command buffers and executables are not offered
 * (their vtable entries are NULL, which libhalo answers with UNIMPLEMENTED).
 * Like every plugin it links nothing of libhalo and exports only
 * halo_plugin_query (DESIGN.md §2). */
#include <string.h>

#include "halo/device.h"
#include "halo/driver.h"
#include "halo/plugin.h"
#include "halo/sdk/c/plugin_query.h"
#include "halo/sdk/c/queue.h"
#include "halo/sdk/c/semaphore.h"

/* The name halo-cts reports as the peer (the "peer_used" of its reports). */
#define CTS_PEER_NAME "cts_peer"
#define CTS_PEER_VERSION "1.0.0"
/* Ids are the driver's own; 0 is never valid. */
#define CTS_PEER_DEVICE_ID ((halo_device_id_t)1)

typedef struct cts_peer_driver_t {
  halo_object_t object; /* First: every halo object starts with its header. */
  const halo_host_interface_t* host;
} cts_peer_driver_t;

typedef struct cts_peer_device_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  cts_peer_driver_t* driver; /* Retained: the driver outlives its devices. */
  halo_sdk_queue_t* queue;
} cts_peer_device_t;

/* ---- Helpers ------------------------------------------------------------ */

static void* peer_allocate(const halo_host_interface_t* host, size_t size) {
  return host->allocator.allocate(host->allocator.self, size, 16);
}

static void peer_free(const halo_host_interface_t* host, void* pointer) {
  host->allocator.free(host->allocator.self, pointer);
}

static void peer_object_init(halo_object_t* object, const void* vtable) {
  object->ref_count = 1;
  object->reserved0 = 0;
  object->vtable = (const halo_object_vtable_t*)vtable;
}

static void peer_copy_string(char* target, size_t capacity, const char* text) {
  size_t length = strlen(text);
  if (length >= capacity) length = capacity - 1;
  memcpy(target, text, length);
  target[length] = '\0';
}

/* Copies the fully filled |source| into the caller's |target| up to the
 * smaller of the two sizes, and sets struct_size to what was written
 * (DESIGN.md §2.2: the caller's struct may be older or newer). */
static void peer_copy_out(void* target, uint32_t target_size, void* source,
                          uint32_t source_size) {
  uint32_t size = target_size < source_size ? target_size : source_size;
  if (size < sizeof(uint32_t)) return;
  memcpy(source, &size, sizeof(size));
  memcpy(target, source, size);
}

static void peer_describe_device(halo_device_info_t* out_info) {
  static const uint8_t kUuid[16] = "halo-cts-peer-01";
  memset(out_info, 0, sizeof(*out_info));
  out_info->struct_size = sizeof(*out_info);
  out_info->type = HALO_DEVICE_TYPE_OTHER;
  out_info->device_id = CTS_PEER_DEVICE_ID;
  peer_copy_string(out_info->name, sizeof(out_info->name), "halo-cts reference peer");
  peer_copy_string(out_info->vendor, sizeof(out_info->vendor), "halo");
  peer_copy_string(out_info->driver_version, sizeof(out_info->driver_version),
                   CTS_PEER_VERSION);
  memcpy(out_info->uuid, kUuid, sizeof(kUuid));
  /* A host device with one queue thread; without buffers or dispatch its
   * capabilities' memory size and limits stay 0 (halo/device.h). */
  peer_copy_string(out_info->native_api, sizeof(out_info->native_api), "host");
  out_info->compute_units = 1;
}

/* ---- Device ------------------------------------------------------------- */

/* Every semaphore and submission holds a reference, so none is left; this
 * may run on the queue's own worker, which halo_sdk_queue_destroy handles. */
static void device_destroy(halo_object_t* object) {
  cts_peer_device_t* device = (cts_peer_device_t*)object;
  const halo_host_interface_t* host = device->host;
  cts_peer_driver_t* driver = device->driver;
  halo_sdk_queue_destroy(device->queue);
  peer_free(host, device);
  host->object_release(&driver->object);
}

static halo_status_t device_query_info(halo_device_t* base, halo_device_info_t* out_info) {
  (void)base;
  halo_device_info_t info;
  peer_describe_device(&info);
  peer_copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

static halo_status_t device_query_capabilities(halo_device_t* base,
                                               halo_device_capabilities_t* out_caps) {
  (void)base;
  halo_device_capabilities_t caps;
  memset(&caps, 0, sizeof(caps));
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  /* Host timelines, so that a plugin that shares them is paired with a
   * sharer; and libhalo may make this device wait on such a plugin's
   * semaphores through imports, so that the plugin's committed signals
   * (signal_committed) are certified too. */
  caps.features |= HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS;
  caps.semaphore_export_types = HALO_SDK_SEMAPHORE_SHARE_TYPES;
  caps.semaphore_import_types = HALO_SDK_SEMAPHORE_SHARE_TYPES;
  caps.semaphore_wait_import_types = HALO_SDK_SEMAPHORE_SHARE_TYPES;
  peer_copy_out(out_caps, out_caps->struct_size, &caps, sizeof(caps));
  return HALO_OK;
}

static halo_status_t device_create_semaphore(halo_device_t* base, uint64_t initial_value,
                                             halo_semaphore_flags_t flags,
                                             halo_semaphore_t** out_semaphore) {
  return halo_sdk_semaphore_create_with_flags(((cts_peer_device_t*)base)->host, base,
                                              initial_value, flags, out_semaphore);
}

static halo_status_t device_import_semaphore(halo_device_t* base,
                                             const halo_external_handle_t* handle,
                                             halo_semaphore_t** out_semaphore) {
  return halo_sdk_semaphore_import(((cts_peer_device_t*)base)->host, base, handle,
                                   out_semaphore);
}

/* Its own semaphores fully; any other plugin's from the host, through that
 * plugin's vtable (the SDK's queue waits on them with timepoints). */
static halo_semaphore_compatibility_t device_semaphore_compatibility(
    halo_device_t* base, halo_semaphore_t* semaphore) {
  (void)base;
  if (halo_sdk_semaphore_is(semaphore)) return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT | HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

static halo_status_t device_queue_execute(halo_device_t* base,
                                          const halo_queue_execute_info_t* info) {
  return halo_sdk_queue_execute(((cts_peer_device_t*)base)->queue, base, info);
}

/* The SDK's queue starts each submission as soon as it is ready. */
static halo_status_t device_queue_flush(halo_device_t* base, halo_queue_affinity_t affinity) {
  (void)base;
  (void)affinity;
  return HALO_OK;
}

static halo_status_t device_wait_semaphores(halo_device_t* base, halo_wait_mode_t mode,
                                            size_t count, halo_semaphore_t* const* semaphores,
                                            const uint64_t* values, halo_time_ns_t deadline) {
  return halo_sdk_semaphores_wait(((cts_peer_device_t*)base)->host, mode, count,
                                  semaphores, values, deadline);
}

static halo_status_t device_wait_idle(halo_device_t* base, halo_time_ns_t deadline) {
  return halo_sdk_queue_wait_idle(((cts_peer_device_t*)base)->queue, deadline);
}

static const halo_device_vtable_t kDeviceVtable = {
    .object = {.struct_size = sizeof(halo_device_vtable_t),
               .type = HALO_OBJECT_TYPE_DEVICE,
               .destroy = device_destroy},
    .query_info = device_query_info,
    .query_capabilities = device_query_capabilities,
    .create_semaphore = device_create_semaphore,
    .semaphore_compatibility = device_semaphore_compatibility,
    .queue_execute = device_queue_execute,
    .queue_flush = device_queue_flush,
    .wait_semaphores = device_wait_semaphores,
    .wait_idle = device_wait_idle,
    .import_semaphore = device_import_semaphore,
};

static halo_status_t device_create(cts_peer_driver_t* driver, halo_device_t** out_device) {
  const halo_host_interface_t* host = driver->host;
  cts_peer_device_t* device = peer_allocate(host, sizeof(*device));
  if (device == NULL) {
    return host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                               "halo_driver_create_device: out of host memory");
  }
  memset(device, 0, sizeof(*device));
  peer_object_init(&device->object, &kDeviceVtable);
  device->host = host;
  /* No claim hook: a submission naming a command buffer is INVALID_ARGUMENT.
   * No submit hook: the queue completes each ready submission at once. */
  const halo_sdk_queue_hooks_t hooks = {.context = device};
  halo_status_t status = halo_sdk_queue_create(host, &hooks, &device->queue);
  if (status != HALO_OK) {
    peer_free(host, device);
    return status;
  }
  device->driver = driver;
  host->object_retain(&driver->object);
  *out_device = (halo_device_t*)device;
  return HALO_OK;
}

/* ---- Driver ------------------------------------------------------------- */

static void driver_destroy(halo_object_t* object) {
  cts_peer_driver_t* driver = (cts_peer_driver_t*)object;
  peer_free(driver->host, driver);
}

static halo_status_t driver_query_info(halo_driver_t* base, halo_driver_info_t* out_info) {
  (void)base;
  halo_driver_info_t info;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  peer_copy_string(info.name, sizeof(info.name), CTS_PEER_NAME);
  peer_copy_string(info.version, sizeof(info.version), CTS_PEER_VERSION);
  peer_copy_string(info.description, sizeof(info.description),
                   "halo-cts reference peer: the SDK's host semaphores and queue");
  peer_copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

/* One device, written every |info_stride| bytes (the caller's struct size). */
static halo_status_t driver_enumerate_devices(halo_driver_t* base, size_t capacity,
                                              size_t info_stride,
                                              halo_device_info_t* out_infos,
                                              size_t* out_count) {
  (void)base;
  if (out_infos != NULL && capacity > 0) {
    halo_device_info_t info;
    peer_describe_device(&info);
    const uint32_t size = info_stride > UINT32_MAX ? UINT32_MAX : (uint32_t)info_stride;
    peer_copy_out(out_infos, size, &info, sizeof(info));
  }
  *out_count = 1;
  return HALO_OK;
}

static halo_status_t driver_create_device(halo_driver_t* base, halo_device_id_t device_id,
                                          const halo_device_params_t* params,
                                          halo_device_t** out_device) {
  cts_peer_driver_t* driver = (cts_peer_driver_t*)base;
  (void)params;
  *out_device = NULL;
  if (device_id != CTS_PEER_DEVICE_ID) {
    return driver->host->status_format(
        HALO_STATUS_NOT_FOUND,
        "halo_driver_create_device: device_id %llu names no device of the %s driver",
        (unsigned long long)device_id, CTS_PEER_NAME);
  }
  return device_create(driver, out_device);
}

static const halo_driver_vtable_t kDriverVtable = {
    .object = {.struct_size = sizeof(halo_driver_vtable_t),
               .type = HALO_OBJECT_TYPE_DRIVER,
               .destroy = driver_destroy},
    .query_info = driver_query_info,
    .enumerate_devices = driver_enumerate_devices,
    .create_device = driver_create_device,
};

static halo_status_t driver_create(const halo_host_interface_t* host,
                                   halo_driver_t** out_driver) {
  *out_driver = NULL;
  cts_peer_driver_t* driver = peer_allocate(host, sizeof(*driver));
  if (driver == NULL) {
    return host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                               "create_driver: out of host memory");
  }
  memset(driver, 0, sizeof(*driver));
  peer_object_init(&driver->object, &kDriverVtable);
  driver->host = host;
  *out_driver = (halo_driver_t*)driver;
  return HALO_OK;
}

/* ---- Entry -------------------------------------------------------------- */

static const halo_plugin_descriptor_t kDescriptor = {
    .struct_size = sizeof(halo_plugin_descriptor_t),
    .abi_version = HALO_ABI_VERSION,
    .name = CTS_PEER_NAME,
    .version = CTS_PEER_VERSION,
    .create_driver = driver_create,
};

HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params) {
  return halo_sdk_plugin_query(params, &kDescriptor);
}
