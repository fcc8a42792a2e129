/* Executables: device code in a plugin-specific format, with entry points.
 * Declared at ABI 1.0. Formats: "spirv" (vulkan), "opencl-c" and
 * "spirv-kernel" (opencl), "cpu-so" (cpu: a native shared object). */
#ifndef HALO_EXECUTABLE_H_
#define HALO_EXECUTABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/object.h"
#include "halo/status.h"

typedef struct halo_executable_params_t {
  uint32_t struct_size;
  uint32_t reserved0;
  /* Format name, e.g. "spirv". Borrowed for the call. */
  const char* format;
  /* The executable's bytes. Borrowed for the call; the plugin copies. */
  const void* data;
  size_t data_size;
  /* --- ABI 1.0 ends here. --- */
} halo_executable_params_t;

typedef struct halo_entry_point_info_t {
  uint32_t struct_size;
  uint32_t reserved0;
  char name[128];
  /* Number of buffer bindings the entry point takes. */
  uint32_t binding_count;
  /* Bytes of constants the entry point takes. */
  uint32_t constant_size;
  /* --- ABI 1.0 ends here. --- */
} halo_entry_point_info_t;

typedef struct halo_executable_vtable_t {
  halo_object_vtable_t object;
  uint32_t (*entry_point_count)(halo_executable_t* executable);
  halo_status_t (*query_entry_point)(halo_executable_t* executable,
                                     uint32_t ordinal,
                                     halo_entry_point_info_t* out_info);
  /* Returns NOT_FOUND when no entry point has |name|. */
  halo_status_t (*lookup_entry_point)(halo_executable_t* executable,
                                      const char* name, uint32_t* out_ordinal);
  /* --- ABI 1.0 ends here. --- */
} halo_executable_vtable_t;

/* Creates an executable on |device|; a new reference in |out_executable|.
 * Returns INVALID_ARGUMENT for an unknown format or malformed bytes (with the
 * reason), UNIMPLEMENTED when the device has no executables. Thread-safe. */
HALO_API halo_status_t halo_executable_create(
    halo_device_t* device, const halo_executable_params_t* params,
    halo_executable_t** out_executable);
HALO_API void halo_executable_retain(halo_executable_t* executable);
HALO_API void halo_executable_release(halo_executable_t* executable);
HALO_API halo_status_t halo_executable_entry_point_count(
    halo_executable_t* executable, uint32_t* out_count);
HALO_API halo_status_t halo_executable_query_entry_point(
    halo_executable_t* executable, uint32_t ordinal,
    halo_entry_point_info_t* out_info);
HALO_API halo_status_t halo_executable_lookup_entry_point(
    halo_executable_t* executable, const char* name, uint32_t* out_ordinal);

#endif /* HALO_EXECUTABLE_H_ */
