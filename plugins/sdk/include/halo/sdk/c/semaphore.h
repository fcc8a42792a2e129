/* The SDK's timeline semaphore for plugins written in C.
 *
 * A complete halo semaphore (every row of DESIGN.md §4: monotonic payload,
 * sticky failure, deadlines, timepoints, wait-any) kept on the host with a
 * futex for blocking waits. A plugin whose device has a native timeline
 * primitive may start with this and replace it later. Link halo::plugin_sdk
 * (a static C++ library: the plugin links with the C++ runtime). */
#ifndef HALO_SDK_C_SEMAPHORE_H_
#define HALO_SDK_C_SEMAPHORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/device.h"
#include "halo/external_handle.h"
#include "halo/plugin.h"
#include "halo/semaphore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a semaphore of |device| (retained until the semaphore goes) at
 * |initial_value|, as the device vtable's create_semaphore: libhalo has
 * checked |out_semaphore| and |initial_value|. Returns a new reference, or
 * RESOURCE_EXHAUSTED. */
halo_status_t halo_sdk_semaphore_create(const halo_host_interface_t* host,
                                        halo_device_t* device,
                                        uint64_t initial_value,
                                        halo_semaphore_t** out_semaphore);

/* The handle types these semaphores export and import as (ABI 1.6): a
 * device whose semaphores are these may list them in its capabilities'
 * semaphore_export_types and semaphore_import_types, create them with
 * halo_sdk_semaphore_create_with_flags and import them with
 * halo_sdk_semaphore_import. */
#define HALO_SDK_SEMAPHORE_SHARE_TYPES HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD

/* halo_sdk_semaphore_create with the device vtable's |flags|: with
 * HALO_SEMAPHORE_FLAG_EXPORTABLE the payload lives in a shared page that
 * halo_semaphore_export hands out as a HOST_TIMELINE_FD, and a thread
 * watches it for other sharers' signals. */
halo_status_t halo_sdk_semaphore_create_with_flags(
    const halo_host_interface_t* host, halo_device_t* device,
    uint64_t initial_value, halo_semaphore_flags_t flags,
    halo_semaphore_t** out_semaphore);

/* The device vtable's import_semaphore for a HOST_TIMELINE_FD (libhalo has
 * checked the handle and that the device imports the type): one of these
 * semaphores over the shared page, which owns |handle->fd| on success
 * only. INVALID_ARGUMENT for an fd that is not a host timeline's page. */
halo_status_t halo_sdk_semaphore_import(const halo_host_interface_t* host,
                                        halo_device_t* device,
                                        const halo_external_handle_t* handle,
                                        halo_semaphore_t** out_semaphore);

/* True when |semaphore| (any plugin's, or NULL) is one of these. */
bool halo_sdk_semaphore_is(halo_semaphore_t* semaphore);

/* The device vtable's wait_semaphores over semaphores of this kind only:
 * ALL or ANY of |count| pairs until |deadline|. OK when met,
 * DEADLINE_EXCEEDED, or the failure of a failed semaphore. */
halo_status_t halo_sdk_semaphores_wait(const halo_host_interface_t* host,
                                       halo_wait_mode_t mode, size_t count,
                                       halo_semaphore_t* const* semaphores,
                                       const uint64_t* values,
                                       halo_time_ns_t deadline);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HALO_SDK_C_SEMAPHORE_H_ */
