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
