/* command_buffer.c: the template's command buffers (halo/command_buffer.h), not
 * offered yet, and the claim hooks of the device's queue.
 *
 * template_command_buffer_create is the device's create_command_buffer. Its native
 * half, command_buffer_create_native, answers UNIMPLEMENTED, so no command buffer
 * exists yet; the object and its vtable are here in full, each entry a stub saying
 * what it records once the native side is real. When command buffers work, claim
 * HALO_DEVICE_FEATURE_COMMAND_BUFFERS (device.c) and run them in device_submit. */
#include "template_plugin.h"

typedef struct template_command_buffer_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  template_device_t* device; /* Retained. */
  halo_command_buffer_mode_t mode;
  /* VENDOR: your native recording (a VkCommandBuffer, a list of enqueues) and its
   * state: initial, recording, ended; for ONE_SHOT, whether it was submitted. */
  void* native;
} template_command_buffer_t;

/* ---- Native recording --------------------------------------------------------- */

/* VENDOR: create an empty native recording for |mode| (ONE_SHOT or REUSABLE). */
static halo_status_t command_buffer_create_native(template_device_t* device,
                                                  halo_command_buffer_mode_t mode,
                                                  void** out_native) {
  (void)mode;
  *out_native = NULL;
  return template_unimplemented(
      device->host, "halo_command_buffer_create: the template device has no command buffers yet");
}

/* VENDOR: free the native recording; release every buffer and executable it
 * retained. */
static void command_buffer_free_native(template_command_buffer_t* command_buffer) {
  (void)command_buffer;
}

/* ---- Vtable ------------------------------------------------------------------- */

/* Runs when the last reference goes: every submission that runs the command
 * buffer holds one until it completes. */
static void command_buffer_destroy(halo_object_t* object) {
  template_command_buffer_t* command_buffer = (template_command_buffer_t*)object;
  const halo_host_interface_t* host = command_buffer->host;
  template_device_t* device = command_buffer->device;
  command_buffer_free_native(command_buffer);
  template_free(host, command_buffer);
  host->object_release(&device->object);
}

/* The answer of every recording stub below. */
static halo_status_t command_buffer_unimplemented(halo_command_buffer_t* base,
                                                  const char* message) {
  return template_unimplemented(((template_command_buffer_t*)base)->host, message);
}

/* VENDOR: start recording; FAILED_PRECONDITION "halo_command_buffer_begin:
 * command_buffer is recording already" unless it is new (or, REUSABLE, ended). */
static halo_status_t command_buffer_begin(halo_command_buffer_t* base) {
  return command_buffer_unimplemented(base, "halo_command_buffer_begin: not recorded yet");
}

/* VENDOR: end recording; FAILED_PRECONDITION unless recording. Only an ended
 * command buffer may be submitted (claim checks). */
static halo_status_t command_buffer_end(halo_command_buffer_t* base) {
  return command_buffer_unimplemented(base, "halo_command_buffer_end: not recorded yet");
}

/* VENDOR: order every earlier command before every later one (a pipeline
 * barrier). */
static halo_status_t command_buffer_barrier(halo_command_buffer_t* base) {
  return command_buffer_unimplemented(base, "halo_command_buffer_barrier: not recorded yet");
}

/* VENDOR: record a fill of [offset, offset + length) of |target| with the 1-, 2-
 * or 4-byte |pattern| (libhalo has checked |pattern_length|); OUT_OF_RANGE
 * "halo_command_buffer_fill: offset … + length … exceeds target's … bytes";
 * retain |target| until the command buffer goes. */
static halo_status_t command_buffer_fill(halo_command_buffer_t* base, halo_buffer_t* target,
                                         uint64_t offset, uint64_t length,
                                         const void* pattern, size_t pattern_length) {
  (void)target;
  (void)offset;
  (void)length;
  (void)pattern;
  (void)pattern_length;
  return command_buffer_unimplemented(base, "halo_command_buffer_fill: not recorded yet");
}

/* VENDOR: record a write of |length| bytes of |source| (copy them now: the caller
 * keeps |source| only for the call) to |target| at |offset|. */
static halo_status_t command_buffer_update(halo_command_buffer_t* base, const void* source,
                                           halo_buffer_t* target, uint64_t offset,
                                           uint64_t length) {
  (void)source;
  (void)target;
  (void)offset;
  (void)length;
  return command_buffer_unimplemented(base, "halo_command_buffer_update: not recorded yet");
}

/* VENDOR: record a copy of |length| bytes between two buffers of this device;
 * INVALID_ARGUMENT for another device's buffer, OUT_OF_RANGE for either range
 * past its buffer's end. */
static halo_status_t command_buffer_copy(halo_command_buffer_t* base, halo_buffer_t* source,
                                         uint64_t source_offset, halo_buffer_t* target,
                                         uint64_t target_offset, uint64_t length) {
  (void)source;
  (void)source_offset;
  (void)target;
  (void)target_offset;
  (void)length;
  return command_buffer_unimplemented(base, "halo_command_buffer_copy: not recorded yet");
}

/* VENDOR: record a dispatch of |params->entry_point| of |params->executable| over
 * |params->workgroup_count|, with its constants (copy them now) and bindings
 * (retain their buffers); INVALID_ARGUMENT naming the member that does not fit
 * the entry point ("halo_command_buffer_dispatch: params->binding_count …"). */
static halo_status_t command_buffer_dispatch(halo_command_buffer_t* base,
                                             const halo_dispatch_params_t* params) {
  (void)params;
  return command_buffer_unimplemented(base, "halo_command_buffer_dispatch: not recorded yet");
}

static const halo_command_buffer_vtable_t kCommandBufferVtable = {
    .object = {.struct_size = sizeof(halo_command_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_COMMAND_BUFFER,
               .destroy = command_buffer_destroy},
    .begin = command_buffer_begin,
    .end = command_buffer_end,
    .barrier = command_buffer_barrier,
    .fill = command_buffer_fill,
    .update = command_buffer_update,
    .copy = command_buffer_copy,
    .dispatch = command_buffer_dispatch,
};

/* ---- Creation ----------------------------------------------------------------- */

/* libhalo has checked |out_command_buffer|. */
halo_status_t template_command_buffer_create(halo_device_t* base,
                                             halo_command_buffer_mode_t mode,
                                             halo_command_buffer_t** out_command_buffer) {
  template_device_t* device = (template_device_t*)base;
  const halo_host_interface_t* host = device->host;
  *out_command_buffer = NULL;
  if (mode != HALO_COMMAND_BUFFER_MODE_ONE_SHOT && mode != HALO_COMMAND_BUFFER_MODE_REUSABLE) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               "halo_command_buffer_create: mode 0x%x is neither ONE_SHOT "
                               "nor REUSABLE",
                               (unsigned)mode);
  }
  template_command_buffer_t* command_buffer = template_allocate(host, sizeof(*command_buffer));
  if (command_buffer == NULL) return template_out_of_memory(host, "halo_command_buffer_create");
  memset(command_buffer, 0, sizeof(*command_buffer));
  halo_status_t status = command_buffer_create_native(device, mode, &command_buffer->native);
  if (status != HALO_OK) {
    template_free(host, command_buffer);
    return status;
  }
  template_object_init(&command_buffer->object, &kCommandBufferVtable);
  command_buffer->host = host;
  command_buffer->device = device;
  command_buffer->mode = mode;
  host->object_retain(&device->object);
  *out_command_buffer = (halo_command_buffer_t*)command_buffer;
  return HALO_OK;
}

/* ---- The queue's claim hooks -------------------------------------------------- */

/* Accepts the command buffers of a submit, all or none (halo/sdk/c/queue.h).
 * VENDOR: once command buffers record, accept this device's ended ones here:
 * FAILED_PRECONDITION "halo_device_queue_execute: info->command_buffers[i] has not
 * ended" (or, ONE_SHOT, "was submitted before"), then mark each submitted, with an
 * atomic flag so that two threads cannot both submit a ONE_SHOT one. Until then
 * any command buffer is refused: none of them is this device's. */
halo_status_t template_command_buffers_claim(void* context,
                                             const halo_queue_execute_info_t* info) {
  template_device_t* device = (template_device_t*)context;
  for (size_t i = 0; i < info->command_buffer_count; ++i) {
    const template_command_buffer_t* command_buffer =
        (const template_command_buffer_t*)info->command_buffers[i];
    if (command_buffer->object.vtable != &kCommandBufferVtable.object ||
        command_buffer->device != device) {
      return device->host->status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "halo_device_queue_execute: info->command_buffers[%zu] is not a command buffer "
          "of this device",
          i);
    }
  }
  if (info->command_buffer_count == 0) return HALO_OK;
  return template_unimplemented(
      device->host, "halo_device_queue_execute: the template device cannot run command buffers");
}

/* Undoes a claim whose submit failed after it. VENDOR: clear the marks claim set. */
void template_command_buffers_unclaim(void* context, const halo_queue_execute_info_t* info) {
  (void)context;
  (void)info;
}
