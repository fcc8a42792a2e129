/* device.c: the template's device (halo/device.h): info, capabilities, timeline
 * semaphores and the queue.
 *
 * Semaphores are the SDK's (halo/sdk/c/semaphore.h): complete host timelines that
 * keep every row of DESIGN.md §4. The queue is the SDK's queue core
 * (halo/sdk/c/queue.h): it keeps DESIGN.md §5 (waits on semaphores of any plugin,
 * signals, failure propagation, retention, wait_idle) and calls this file's submit
 * hook only with work whose waits are all reached. Buffers, command buffers and
 * executables live in their own files. */
#include "halo/sdk/c/queue.h"
#include "halo/sdk/c/semaphore.h"
#include "template_plugin.h"

/* ---- The queue's hook --------------------------------------------------------- */

/* The SDK calls this on its queue worker once every wait of |submission| is
 * reached (never for one whose wait failed: the SDK fails its signals itself).
 * The work is its |count| command buffers, retained until it completes; it
 * completes when halo_sdk_submission_complete is called, from any thread: OK
 * signals its signal semaphores, a status fails them with copies of it.
 *
 * VENDOR: this is where the hardware goes. Hand |command_buffers| to your hardware
 * queue here and return at once; call halo_sdk_submission_complete from your
 * completion interrupt, fence callback or event thread, with a status naming the
 * native call and error when the device failed the work (DESIGN.md §9). The
 * template has no command buffers (claim refuses every one), so each submission
 * is a barrier: it completes here, at once. */
static void device_submit(void* context, halo_sdk_submission_t* submission,
                          halo_command_buffer_t* const* command_buffers, size_t count) {
  (void)context;
  (void)command_buffers;
  (void)count;
  halo_sdk_submission_complete(submission, HALO_OK);
}

/* ---- Vtable ------------------------------------------------------------------- */

/* Runs when the last reference goes. Every semaphore and every submission holds
 * one, so no submission is left; this may run on the queue's own worker thread
 * (it dropped the last reference), which halo_sdk_queue_destroy handles. */
static void device_destroy(halo_object_t* object) {
  template_device_t* device = (template_device_t*)object;
  const halo_host_interface_t* host = device->host;
  template_driver_t* driver = device->driver;
  halo_sdk_queue_destroy(device->queue);
  /* VENDOR: destroy your hardware queue and native device here, after the SDK's
   * queue (whose hooks may use them) and before the driver. */
  template_free(host, device);
  host->object_release(&driver->object);
}

static halo_status_t device_query_info(halo_device_t* base, halo_device_info_t* out_info) {
  template_device_t* device = (template_device_t*)base;
  halo_device_info_t info = device->info;
  template_copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

/* VENDOR: claim only what works. The CTS tests every claim, and skips (naming the
 * bit) each case that needs what you do not claim. As buffers, command buffers
 * and executables come (buffer.c, command_buffer.c, executable.c), add
 * HALO_DEVICE_FEATURE_BUFFERS (with max_buffer_size, min_buffer_alignment and
 * memory_types), HALO_DEVICE_FEATURE_COMMAND_BUFFERS and
 * HALO_DEVICE_FEATURE_DISPATCH (with executable_formats); with native semaphores
 * the device waits on itself, add HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT. */
static halo_status_t device_query_capabilities(halo_device_t* base,
                                               halo_device_capabilities_t* out_caps) {
  (void)base;
  halo_device_capabilities_t caps;
  memset(&caps, 0, sizeof(caps));
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  /* VENDOR (ABI 1.2): with buffers, device_memory_size (your largest
   * heap); with dispatch, the workgroup, binding and constant limits that
   * your executables and dispatches enforce (halo/device.h). The template
   * has neither, so they stay 0. */
  template_copy_out(out_caps, out_caps->struct_size, &caps, sizeof(caps));
  return HALO_OK;
}

/* libhalo has checked |initial_value| and |flags| (ABI 1.0 defines no flag).
 * VENDOR: keep the SDK's semaphore, or back yours with the native timeline
 * primitive (a timeline VkSemaphore, say) keeping every row of DESIGN.md §4; the
 * CTS's semaphore.* and timepoint.* cases check them all. Then update
 * device_semaphore_compatibility and device_wait_semaphores to match. */
static halo_status_t device_create_semaphore(halo_device_t* base, uint64_t initial_value,
                                             halo_semaphore_flags_t flags,
                                             halo_semaphore_t** out_semaphore) {
  template_device_t* device = (template_device_t*)base;
  (void)flags;
  return halo_sdk_semaphore_create(device->host, base, initial_value, out_semaphore);
}

/* This plugin's semaphores are host objects that its device waits on and signals
 * fully; any other plugin's it waits on and signals from the host through that
 * plugin's vtable (the SDK's queue does so with timepoints). VENDOR: with native
 * semaphores, ALL for those of your own devices that share them natively. */
static halo_semaphore_compatibility_t device_semaphore_compatibility(
    halo_device_t* base, halo_semaphore_t* semaphore) {
  (void)base;
  if (halo_sdk_semaphore_is(semaphore)) return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT | HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

/* Submits without blocking. libhalo has checked |info| (handles, types, value
 * ranges, signal values above their payloads); the SDK checks the affinity and
 * asks claim (command_buffer.c) about the command buffers. */
static halo_status_t device_queue_execute(halo_device_t* base,
                                          const halo_queue_execute_info_t* info) {
  template_device_t* device = (template_device_t*)base;
  return halo_sdk_queue_execute(device->queue, base, info);
}

/* The SDK's queue hands each submission to device_submit as soon as it is ready.
 * VENDOR: if your submit hook batches work, start the batch here. */
static halo_status_t device_queue_flush(halo_device_t* base, halo_queue_affinity_t affinity) {
  (void)base;
  (void)affinity;
  return HALO_OK;
}

/* ALL or ANY over semaphores of this device (libhalo routes lists that mix
 * devices or plugins through timepoints). VENDOR: with native semaphores, the
 * native multi-wait (vkWaitSemaphores with the ANY bit, say). */
static halo_status_t device_wait_semaphores(halo_device_t* base, halo_wait_mode_t mode,
                                            size_t count, halo_semaphore_t* const* semaphores,
                                            const uint64_t* values, halo_time_ns_t deadline) {
  template_device_t* device = (template_device_t*)base;
  return halo_sdk_semaphores_wait(device->host, mode, count, semaphores, values, deadline);
}

/* Blocks until every submission made before the call has completed and let go of
 * what it held, or |deadline| passes (DEADLINE_EXCEEDED). */
static halo_status_t device_wait_idle(halo_device_t* base, halo_time_ns_t deadline) {
  template_device_t* device = (template_device_t*)base;
  return halo_sdk_queue_wait_idle(device->queue, deadline);
}

/* allocate_buffer, create_command_buffer and create_executable answer
 * UNIMPLEMENTED until their files are filled in (libhalo would answer the same
 * for NULL entries; the template names the missing piece instead). */
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
    .allocate_buffer = template_buffer_allocate,
    .create_command_buffer = template_command_buffer_create,
    .create_executable = template_executable_create,
};

/* ---- Creation ----------------------------------------------------------------- */

halo_status_t template_device_create(template_driver_t* driver,
                                     const halo_device_info_t* info,
                                     halo_device_t** out_device) {
  const halo_host_interface_t* host = driver->host;
  template_device_t* device = template_allocate(host, sizeof(*device));
  if (device == NULL) return template_out_of_memory(host, "halo_driver_create_device");
  memset(device, 0, sizeof(*device));
  template_object_init(&device->object, &kDeviceVtable);
  device->host = host;
  device->info = *info;
  /* VENDOR: open the native device and its hardware queue here; on failure free
   * |device| and return a status naming the native call and its error. */
  const halo_sdk_queue_hooks_t hooks = {
      .context = device,
      .claim = template_command_buffers_claim,
      .unclaim = template_command_buffers_unclaim,
      .submit = device_submit,
  };
  halo_status_t status = halo_sdk_queue_create(host, &hooks, &device->queue);
  if (status != HALO_OK) {
    template_free(host, device);
    return status;
  }
  device->driver = driver;
  host->object_retain(&driver->object);
  *out_device = (halo_device_t*)device;
  return HALO_OK;
}
