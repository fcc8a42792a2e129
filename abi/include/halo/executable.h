/* Executables: device code with entry points that command buffers dispatch.
 * Declared at ABI 1.0; a device without them (no HALO_DEVICE_FEATURE_DISPATCH)
 * leaves the device vtable's create_executable NULL and
 * halo_executable_create returns UNIMPLEMENTED.
 *
 * Formats. A format is named by a string; a device lists those it accepts in
 * halo_device_capabilities_t.executable_formats. Names in use: "spirv" (a
 * SPIR-V module of GLCompute entry points), "spirv-kernel" (a SPIR-V module
 * of Kernel entry points), "opencl-c" (OpenCL C source) and "cpu-so" (a
 * native shared object for the host CPU that exports a halo kernel table).
 *
 * Entry points. An executable has one or more, numbered 0 … count - 1 in an
 * order of the device's choosing and named uniquely; the numbers and what
 * halo_executable_query_entry_point reports stay fixed for the executable's
 * life. Look an entry point up by name rather than assume its number.
 *
 * Lifetime. An executable retains its device; a command buffer that records
 * a dispatch of it retains it, so the caller may release it once recorded.
 * Every function below is thread-safe, and each that returns a status
 * returns INVALID_ARGUMENT for a NULL or wrong-type handle or a NULL
 * pointer argument. */
#ifndef HALO_EXECUTABLE_H_
#define HALO_EXECUTABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/object.h"
#include "halo/status.h"

/* What halo_executable_create reads. */
typedef struct halo_executable_params_t {
  uint32_t struct_size;
  uint32_t reserved0;
  /* One of the device's formats (see Formats). Borrowed for the call. */
  const char* format;
  /* The executable's bytes. Borrowed for the call: the device copies what it
   * keeps. */
  const void* data;
  /* Bytes at |data|; not 0. */
  size_t data_size;
  /* --- ABI 1.0 ends here. --- */
} halo_executable_params_t;

/* One entry point, as halo_executable_query_entry_point reports it: |name|
 * is NUL-terminated, and a dispatch of it passes exactly |binding_count|
 * bindings and |constant_size| bytes of constants (halo_dispatch_params_t).
 * Filled up to the smaller of the caller's struct_size and this header's
 * size of it, with struct_size set to the bytes filled. */
typedef struct halo_entry_point_info_t {
  uint32_t struct_size;
  uint32_t reserved0;
  char name[128];
  /* Number of buffer bindings the entry point takes. */
  uint32_t binding_count;
  /* Bytes of constants the entry point takes. */
  uint32_t constant_size;
  /* --- ABI 1.0 ends here. --- */
  /* The workgroup (local) size the entry point declares, {x, y, z}: a
   * dispatch of workgroup_count[i] workgroups runs workgroup_count[i] *
   * workgroup_size[i] work-items in dimension i, so a caller sizes its grid
   * from this instead of from the kernel's source. {0, 0, 0} when the entry
   * point fixes no size, and a workgroup is what the device makes of it (its
   * plugin's documentation says what: a host device may call the entry
   * point once per workgroup and let the function decide how much work a
   * call does); also {0, 0, 0} from a plugin built for ABI 1.0. Valid only when
   * the struct_size that comes back covers it: a libhalo of ABI 1.0 stops
   * before it. */
  uint32_t workgroup_size[3];
  /* --- ABI 1.1 ends here. --- */
} halo_entry_point_info_t;

/* The executable vtable a plugin implements. Every entry is required. Each
 * implements the public function of its name below, with its rules and
 * codes; libhalo has already checked the handle and NULL pointers
 * (DESIGN.md §6), and gives query_entry_point a struct of this header's
 * size. */
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

/* Creates an executable on |device| (borrowed) from |params|; a new
 * reference in |out_executable| (NULL on failure). Thread-safe. Returns
 * INVALID_ARGUMENT for a bad |device|, a NULL |params|, |params->format| or
 * |out_executable|, a struct_size below ABI 1.0's, a NULL |data| with a
 * non-zero |data_size|, a format the device does not accept, and bytes that
 * are empty, malformed or that the device cannot run (no entry point, two of
 * one name, more bindings or constants than it takes), with the reason in
 * the message; UNIMPLEMENTED when the device lacks
 * HALO_DEVICE_FEATURE_DISPATCH; RESOURCE_EXHAUSTED when memory runs out;
 * INTERNAL naming the plugin if it hands over an executable that breaks the
 * ABI (see object.h). */
HALO_API HALO_MUST_USE halo_status_t halo_executable_create(
    halo_device_t* device, const halo_executable_params_t* params,
    halo_executable_t** out_executable);
/* Adds a reference to |executable|. Accepts NULL. Thread-safe. */
HALO_API void halo_executable_retain(halo_executable_t* executable);
/* Drops a reference to |executable|; the last one destroys it. Accepts NULL.
 * Thread-safe. Command buffers that dispatch it keep their own references. */
HALO_API void halo_executable_release(halo_executable_t* executable);
/* Stores the number of entry points, at least 1, in |out_count|. Borrows
 * |executable|. Thread-safe. Returns INVALID_ARGUMENT for a bad handle or a
 * NULL |out_count|. */
HALO_API HALO_MUST_USE halo_status_t halo_executable_entry_point_count(
    halo_executable_t* executable, uint32_t* out_count);
/* Fills |out_info| with entry point |ordinal| (the caller sets struct_size,
 * at least 4; see halo_entry_point_info_t). Borrows |executable|.
 * Thread-safe. Returns OUT_OF_RANGE when |ordinal| is not below the entry
 * point count; INVALID_ARGUMENT for a bad handle, a NULL |out_info| or a
 * struct_size below 4. */
HALO_API HALO_MUST_USE halo_status_t halo_executable_query_entry_point(
    halo_executable_t* executable, uint32_t ordinal, halo_entry_point_info_t*
    out_info);
/* Stores in |out_ordinal| the number of the entry point named exactly
 * |name|. Borrows both. Thread-safe. Returns NOT_FOUND when no entry point
 * has that name; INVALID_ARGUMENT for a bad handle or a NULL |name| or
 * |out_ordinal|. */
HALO_API HALO_MUST_USE halo_status_t halo_executable_lookup_entry_point(
    halo_executable_t* executable, const char* name, uint32_t* out_ordinal);

#endif /* HALO_EXECUTABLE_H_ */
