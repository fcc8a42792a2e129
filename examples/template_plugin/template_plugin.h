/* template_plugin.h: what the template plugin's files share.
 *
 * The template is a complete, working halo driver plugin with one device whose
 * timeline semaphores and queue come from the plugin SDK's C interface
 * (the halo/sdk/c/ headers), and whose buffers, command buffers and executables are stubs.
 * Each vtable entry a vendor has to fill in says so with a "VENDOR:" note. One file
 * per object:
 *
 *   plugin.c          the descriptor and halo_plugin_query, the one exported symbol
 *   driver.c          the driver: its info, device enumeration, device creation
 *   device.c          the device: info, capabilities, semaphores and the queue
 *   buffer.c          buffers (not offered yet)
 *   command_buffer.c  command buffers (not offered yet) and the queue's claim hooks
 *   executable.c      executables (not offered yet)
 *
 * Everything here follows DESIGN.md §2: the plugin exports only halo_plugin_query,
 * links nothing of libhalo (memory, statuses, logging and reference counts come
 * through the host interface), and every struct it fills honours the caller's
 * struct_size. */
#ifndef HALO_TEMPLATE_PLUGIN_H_
#define HALO_TEMPLATE_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "halo/device.h"
#include "halo/driver.h"
#include "halo/plugin.h"
#include "halo/sdk/c/queue.h"

/* VENDOR: your plugin's name, the same as NAME in CMakeLists.txt (the loader
 * compares the descriptor's name with the manifest's), and its version. */
#define TEMPLATE_PLUGIN_NAME "template"
#define TEMPLATE_PLUGIN_VERSION "0.1.0"

/* ---- Objects ------------------------------------------------------------------ */

/* The plugin's driver: one per loaded plugin (DESIGN.md §3). */
typedef struct template_driver_t {
  halo_object_t object; /* First: every halo object starts with its header. */
  const halo_host_interface_t* host;
  /* VENDOR: your native API's instance (VkInstance, a cl_platform_id, a file
   * descriptor of your kernel driver). */
} template_driver_t;

/* A device. It holds a reference to its driver, and every semaphore and every
 * submission holds one to it. */
typedef struct template_device_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  template_driver_t* driver; /* Retained: the driver outlives its devices. */
  halo_device_info_t info;   /* As enumerated. */
  /* The SDK's queue core: waits, signals, failure propagation, wait_idle. */
  halo_sdk_queue_t* queue;
  /* VENDOR: your native device and hardware queue. */
} template_device_t;

/* ---- Entry points of one file used by another ------------------------------------ */

/* driver.c: the descriptor's create_driver. Returns a new reference in
 * |out_driver|, or a status saying why the plugin cannot run here. */
halo_status_t template_driver_create(const halo_host_interface_t* host,
                                     halo_driver_t** out_driver);

/* device.c: creates the device |info| describes, on |driver| (retained by the
 * device). Returns a new reference in |out_device|. */
halo_status_t template_device_create(template_driver_t* driver,
                                     const halo_device_info_t* info,
                                     halo_device_t** out_device);

/* buffer.c: the device vtable's allocate_buffer. */
halo_status_t template_buffer_allocate(halo_device_t* device,
                                       const halo_buffer_params_t* params,
                                       halo_buffer_t** out_buffer);

/* command_buffer.c: the device vtable's create_command_buffer, and the claim and
 * unclaim hooks of the device's queue (halo/sdk/c/queue.h; |context| is the
 * template_device_t). */
halo_status_t template_command_buffer_create(halo_device_t* device,
                                             halo_command_buffer_mode_t mode,
                                             halo_command_buffer_t** out_command_buffer);
halo_status_t template_command_buffers_claim(void* context,
                                             const halo_queue_execute_info_t* info);
void template_command_buffers_unclaim(void* context,
                                      const halo_queue_execute_info_t* info);

/* executable.c: the device vtable's create_executable. */
halo_status_t template_executable_create(halo_device_t* device,
                                         const halo_executable_params_t* params,
                                         halo_executable_t** out_executable);

/* ---- Helpers ------------------------------------------------------------------ */

/* Host memory for objects, through the host's allocator. */
static inline void* template_allocate(const halo_host_interface_t* host, size_t size) {
  return host->allocator.allocate(host->allocator.self, size, 16);
}

static inline void template_free(const halo_host_interface_t* host, void* pointer) {
  host->allocator.free(host->allocator.self, pointer);
}

/* Starts |object|'s header: one reference (the creator's) and |vtable|. */
static inline void template_object_init(halo_object_t* object, const void* vtable) {
  object->ref_count = 1;
  object->reserved0 = 0;
  object->vtable = (const halo_object_vtable_t*)vtable;
}

/* RESOURCE_EXHAUSTED for |function| (the public call, e.g. "halo_semaphore_create")
 * when the host's allocator returns NULL. */
static inline halo_status_t template_out_of_memory(const halo_host_interface_t* host,
                                                   const char* function) {
  return host->status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                             "%s: out of host memory", function);
}

/* UNIMPLEMENTED with |message|, for what the template does not do yet. */
static inline halo_status_t template_unimplemented(const halo_host_interface_t* host,
                                                   const char* message) {
  return host->status_create(HALO_STATUS_UNIMPLEMENTED, message);
}

/* Copies |text| into a fixed-size field, always NUL-terminated. */
static inline void template_copy_string(char* target, size_t capacity, const char* text) {
  size_t length = strlen(text);
  if (length >= capacity) length = capacity - 1;
  memcpy(target, text, length);
  target[length] = '\0';
}

/* Copies a fully filled |source| struct (|source_size| bytes, struct_size first)
 * into the caller's |target|, whose struct_size |target_size| says how much the
 * caller knows: the members both sides know are written, nothing past them, and
 * struct_size is set to what was written (DESIGN.md §2.2). */
static inline void template_copy_out(void* target, uint32_t target_size, void* source,
                                     uint32_t source_size) {
  uint32_t size = target_size < source_size ? target_size : source_size;
  if (size < sizeof(uint32_t)) return;
  memcpy(source, &size, sizeof(size));
  memcpy(target, source, size);
}

#endif /* HALO_TEMPLATE_PLUGIN_H_ */
