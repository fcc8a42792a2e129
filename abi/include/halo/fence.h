/* Fences and pollable wait handles (DESIGN.md §4a, ABI 1.4).
 *
 * A fence is a set of timepoints — (semaphore, value) pairs — whose
 * semaphores may belong to any devices and plugins. It is reached when
 * every timepoint is reached, and failed as soon as any of its semaphores
 * failed, with that semaphore's failure status (code and message kept).
 * A fence holds each semaphore once, at the largest value inserted for it,
 * and retains it until the fence is destroyed; timepoints are only ever
 * added. Fences are libhalo's own objects, not a plugin's: every call below
 * works through the semaphores' public functions, so a fence mixes plugins
 * of any ABI 1.x.
 *
 * A wait handle is a file descriptor that becomes readable once a fence's
 * timepoints (those it held when the handle was made) are all reached or
 * one of them failed, for poll, epoll, io_uring or any event loop; no
 * thread blocks for it. It is an eventfd driven by a timepoint on each
 * semaphore, and stays readable once ready (its counter is never reset by
 * libhalo). Destroying the handle cancels its timepoints and closes the fd.
 *
 * Every function is thread-safe. Functions borrow their arguments unless
 * they say otherwise. */
#ifndef HALO_FENCE_H_
#define HALO_FENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/deadline.h"
#include "halo/device.h"
#include "halo/object.h"
#include "halo/semaphore.h"
#include "halo/status.h"

typedef struct halo_fence_t halo_fence_t;
typedef struct halo_wait_handle_t halo_wait_handle_t;

/* Creates an empty fence (reached at once) and returns a new reference in
 * |out_fence|. INVALID_ARGUMENT for a NULL |out_fence|; RESOURCE_EXHAUSTED
 * when memory runs out. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_create(
    halo_fence_t** out_fence);
/* Adds a reference to |fence|. Accepts NULL. */
HALO_API void halo_fence_retain(halo_fence_t* fence);
/* Drops a reference; the last one releases every semaphore the fence holds.
 * Wait handles made from it keep what they need. Accepts NULL. */
HALO_API void halo_fence_release(halo_fence_t* fence);

/* Adds the timepoint (|semaphore|, |value|): a semaphore the fence already
 * holds keeps the larger of its two values. Retains |semaphore|.
 * INVALID_ARGUMENT for a bad fence or semaphore handle or a |value| above
 * HALO_SEMAPHORE_MAX_VALUE; RESOURCE_EXHAUSTED when memory runs out (the
 * fence is then unchanged). */
HALO_API HALO_MUST_USE halo_status_t halo_fence_insert(
    halo_fence_t* fence, halo_semaphore_t* semaphore, uint64_t value);

/* Inserts every timepoint of |source| into |fence| (which may be |source|).
 * INVALID_ARGUMENT for a bad handle; RESOURCE_EXHAUSTED when memory runs
 * out, with some of |source|'s timepoints possibly inserted. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_join(halo_fence_t* fence,
                                                      halo_fence_t* source);

/* Stores the number of timepoints in |out_count| and copies the first
 * min(|capacity|, count) of them, in insertion order, into |out_semaphores|
 * and |out_values| (either may be NULL when |capacity| is 0). The
 * semaphores are borrowed from the fence: valid while it lives. Call with
 * capacity 0 to size the arrays; these are a submission's wait or signal
 * lists as they stand (see also halo_device_queue_execute_fences).
 * INVALID_ARGUMENT for a bad handle, a NULL |out_count|, or NULL arrays
 * with a non-zero |capacity|. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_timepoints(
    halo_fence_t* fence, size_t capacity, halo_semaphore_t** out_semaphores,
    uint64_t* out_values, size_t* out_count);

/* Never blocks. OK with *|out_reached| true when every timepoint is
 * reached, false while one is pending; a copy of the failure status of a
 * failed semaphore (the first in insertion order) when one failed, with
 * *|out_reached| false. INVALID_ARGUMENT for a bad handle or a NULL
 * |out_reached|. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_query(halo_fence_t* fence,
                                                       bool* out_reached);

/* Blocks until every timepoint is reached (OK), one of its semaphores fails
 * (a copy of that failure status) or |deadline| passes (DEADLINE_EXCEEDED),
 * as halo_semaphores_wait in ALL mode over the fence's timepoints.
 * HALO_DEADLINE_INFINITE_PAST polls. INVALID_ARGUMENT for a bad handle. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_wait(halo_fence_t* fence,
                                                      halo_time_ns_t deadline);

/* Signals every timepoint from the host: each semaphore below its value is
 * signalled to it, one already at or past it is left as it is. Returns the
 * first failure (a failed semaphore's status, or the INVALID_ARGUMENT of a
 * signal that could not be made) after trying every timepoint.
 * INVALID_ARGUMENT for a bad handle. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_signal(halo_fence_t* fence);

/* halo_device_queue_execute with |wait_fence|'s timepoints as the wait
 * list and |signal_fence|'s as the signal list (either fence may be NULL:
 * an empty list), on the queues of |affinity|. The lists are the fences'
 * timepoints at the call; every rule and status of halo_device_queue_execute
 * applies, and INVALID_ARGUMENT names a bad fence handle. */
HALO_API HALO_MUST_USE halo_status_t halo_device_queue_execute_fences(
    halo_device_t* device, halo_queue_affinity_t affinity,
    halo_fence_t* wait_fence, halo_fence_t* signal_fence,
    size_t command_buffer_count, halo_command_buffer_t* const* command_buffers);

/* Makes a wait handle for the timepoints |fence| holds now: its fd becomes
 * readable once they are all reached or one fails (at once for an empty or
 * already settled fence). The handle keeps its semaphores alive; the caller
 * owns the handle and destroys it with halo_wait_handle_destroy.
 * INVALID_ARGUMENT for a bad handle or a NULL |out_handle|;
 * RESOURCE_EXHAUSTED when memory or file descriptors run out; a semaphore's
 * own error if it refuses a timepoint. */
HALO_API HALO_MUST_USE halo_status_t halo_fence_create_wait_handle(
    halo_fence_t* fence, halo_wait_handle_t** out_handle);

/* The handle's file descriptor (non-blocking, close-on-exec), owned by the
 * handle: poll it for POLLIN, never close it. -1 for NULL. */
HALO_API int halo_wait_handle_fd(const halo_wait_handle_t* handle);

/* Never blocks. OK with *|out_ready| true once the timepoints are all
 * reached; a copy of the failure status, *|out_ready| true, once one failed;
 * OK with *|out_ready| false before either. INVALID_ARGUMENT for a NULL
 * |handle| or |out_ready|. */
HALO_API HALO_MUST_USE halo_status_t halo_wait_handle_status(
    halo_wait_handle_t* handle, bool* out_ready);

/* Cancels the handle's timepoints (race-free: none of its callbacks runs
 * after this returns), releases its semaphores and closes its fd. Not from
 * inside a timepoint callback. Accepts NULL. */
HALO_API void halo_wait_handle_destroy(halo_wait_handle_t* handle);

#endif /* HALO_FENCE_H_ */
