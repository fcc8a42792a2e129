/* halo ABI version and symbol-visibility macros.
 *
 * ABI rule (DESIGN.md §2): a plugin built for 1.N loads in every host 1.M. Hosts
 * newer than the plugin read only the members the plugin's struct sizes cover;
 * hosts older than the plugin ignore members past their own struct sizes. A
 * different major version is refused by the loader with a reason. */
#ifndef HALO_ABI_H_
#define HALO_ABI_H_

#include <stdint.h>

#define HALO_ABI_VERSION_MAJOR 1
/* 1.1 appended halo_entry_point_info_t.workgroup_size; 1.2 appended the
 * native API, compute units, memory size and dispatch limits to
 * halo_device_info_t and halo_device_capabilities_t; 1.3 appended external
 * handles (external.h): export and import of buffers and semaphores; 1.4
 * added libhalo's fences and pollable wait handles (fence.h); 1.5 added
 * device-side waits across plugins: semaphores imported for device waits
 * only, and halo_semaphore_vtable_t.signal_committed (external.h); 1.6
 * added HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD, timelines shared on the
 * host through a page of memory (external_handle.h). */
#define HALO_ABI_VERSION_MINOR 6

/* Packs a major/minor pair into one comparable 32-bit value. */
#define HALO_MAKE_VERSION(major, minor) \
  ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xFFFFu)))
#define HALO_VERSION_MAJOR(version) ((uint32_t)(version) >> 16)
#define HALO_VERSION_MINOR(version) ((uint32_t)(version) & 0xFFFFu)
#define HALO_ABI_VERSION \
  HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR, HALO_ABI_VERSION_MINOR)

#if defined(__GNUC__) || defined(__clang__)
#define HALO_VISIBLE __attribute__((visibility("default")))
#else
#define HALO_VISIBLE
#endif

#ifdef __cplusplus
#define HALO_EXTERN_C extern "C"
#define HALO_EXTERN_C_BEGIN extern "C" {
#define HALO_EXTERN_C_END }
#else
#define HALO_EXTERN_C
#define HALO_EXTERN_C_BEGIN
#define HALO_EXTERN_C_END
#endif

/* Marks a function exported by libhalo. */
#define HALO_API HALO_EXTERN_C HALO_VISIBLE

/* Marks a function whose result the caller must use: every function that
 * returns a halo_status_t, which the caller must check and, when it is not
 * HALO_OK, free (status.h). Ignoring one would lose the error and leak it,
 * so GCC and Clang warn (-Wunused-result); a caller that means to drop a
 * status frees it: halo_status_free(halo_x(...)). */
#if defined(__GNUC__) || defined(__clang__)
#define HALO_MUST_USE __attribute__((warn_unused_result))
#else
#define HALO_MUST_USE
#endif
/* Marks the one symbol a plugin exports (halo_plugin_query). */
#define HALO_PLUGIN_EXPORT HALO_EXTERN_C HALO_VISIBLE

#endif /* HALO_ABI_H_ */
