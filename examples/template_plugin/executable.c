/* executable.c: the template's executables (halo/executable.h), not offered yet.
 *
 * template_executable_create is the device's create_executable. Its native half,
 * executable_load_native, answers UNIMPLEMENTED, so no executable exists yet; the
 * object and its vtable are here in full, each entry a stub saying what it answers
 * once the native side is real. When executables and dispatches work, claim
 * HALO_DEVICE_FEATURE_DISPATCH and name your formats in executable_formats
 * (device.c); the CTS's dispatch.* cases then run your kernels from its testdata
 * (or, with --testdata, from yours). */
#include "template_plugin.h"

typedef struct template_executable_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  template_device_t* device; /* Retained. */
  /* VENDOR: your native module (a VkShaderModule and its pipelines, a cl_program
   * and its kernels) and its entry points' infos. */
  void* native;
} template_executable_t;

/* ---- Native code -------------------------------------------------------------- */

/* VENDOR: load |params->data_size| bytes of |params->data| in |params->format|
 * (copy them: the caller keeps them only for the call). INVALID_ARGUMENT
 * "halo_executable_create: params->format \"…\" is not one this device takes" for
 * a format not in your executable_formats, and with the native compiler's log for
 * malformed bytes. */
static halo_status_t executable_load_native(template_device_t* device,
                                            const halo_executable_params_t* params,
                                            void** out_native) {
  (void)params;
  *out_native = NULL;
  return template_unimplemented(
      device->host, "halo_executable_create: the template device has no executables yet");
}

/* VENDOR: free what executable_load_native made. */
static void executable_free_native(template_executable_t* executable) { (void)executable; }

/* ---- Vtable ------------------------------------------------------------------- */

/* Runs when the last reference goes: every command buffer that dispatches from
 * the executable holds one. */
static void executable_destroy(halo_object_t* object) {
  template_executable_t* executable = (template_executable_t*)object;
  const halo_host_interface_t* host = executable->host;
  template_device_t* device = executable->device;
  executable_free_native(executable);
  template_free(host, executable);
  host->object_release(&device->object);
}

/* VENDOR: the number of entry points the native module has. */
static uint32_t executable_entry_point_count(halo_executable_t* base) {
  (void)base;
  return 0;
}

/* VENDOR: describe entry point |ordinal| in a whole halo_entry_point_info_t: its
 * name, binding_count, constant_size and workgroup_size (the size your native
 * module declares, {0, 0, 0} where it fixes none), then copy it into |out_info|
 * with template_copy_out. libhalo passes its own struct, struct_size set, and a
 * libhalo older than your headers passes a smaller one: nothing may be written
 * past it. OUT_OF_RANGE "halo_executable_query_entry_point: ordinal … is not
 * below the … entry points" past the end. */
static halo_status_t executable_query_entry_point(halo_executable_t* base, uint32_t ordinal,
                                                  halo_entry_point_info_t* out_info) {
  template_executable_t* executable = (template_executable_t*)base;
  (void)ordinal;
  (void)out_info;
  return template_unimplemented(
      executable->host, "halo_executable_query_entry_point: the template has no entry points");
}

/* VENDOR: store the ordinal of the entry point called |name| in |out_ordinal|;
 * NOT_FOUND "halo_executable_lookup_entry_point: name \"…\" names no entry point"
 * when none is. */
static halo_status_t executable_lookup_entry_point(halo_executable_t* base, const char* name,
                                                   uint32_t* out_ordinal) {
  template_executable_t* executable = (template_executable_t*)base;
  (void)name;
  (void)out_ordinal;
  return template_unimplemented(
      executable->host, "halo_executable_lookup_entry_point: the template has no entry points");
}

static const halo_executable_vtable_t kExecutableVtable = {
    .object = {.struct_size = sizeof(halo_executable_vtable_t),
               .type = HALO_OBJECT_TYPE_EXECUTABLE,
               .destroy = executable_destroy},
    .entry_point_count = executable_entry_point_count,
    .query_entry_point = executable_query_entry_point,
    .lookup_entry_point = executable_lookup_entry_point,
};

/* ---- Creation ----------------------------------------------------------------- */

/* libhalo has checked |params| (struct_size, format, data) and |out_executable|. */
halo_status_t template_executable_create(halo_device_t* base,
                                         const halo_executable_params_t* params,
                                         halo_executable_t** out_executable) {
  template_device_t* device = (template_device_t*)base;
  const halo_host_interface_t* host = device->host;
  *out_executable = NULL;
  template_executable_t* executable = template_allocate(host, sizeof(*executable));
  if (executable == NULL) return template_out_of_memory(host, "halo_executable_create");
  memset(executable, 0, sizeof(*executable));
  halo_status_t status = executable_load_native(device, params, &executable->native);
  if (status != HALO_OK) {
    template_free(host, executable);
    return status;
  }
  template_object_init(&executable->object, &kExecutableVtable);
  executable->host = host;
  executable->device = device;
  host->object_retain(&device->object);
  *out_executable = (halo_executable_t*)executable;
  return HALO_OK;
}
