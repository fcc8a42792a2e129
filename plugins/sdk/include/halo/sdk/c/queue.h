/* The SDK's queue core for plugins written in C.
 *
 * A halo_sdk_queue_t does the whole device-independent part of
 * queue_execute: it copies and retains the lists, waits for every wait
 * semaphore (of any plugin) through timepoints, fails every signal
 * semaphore when a wait fails (DESIGN.md §5), signals them when the work is
 * done (failing one whose payload is already at or past its value), releases
 * what it retained, and answers wait_idle. The plugin supplies only what is
 * native, as hooks:
 *
 *   claim:   check the command buffers of a submit (INVALID_ARGUMENT for one
 *            of another device or plugin; FAILED_PRECONDITION for one not
 *            ended or a ONE_SHOT one submitted before) and mark them
 *            submitted, all or none;
 *   unclaim: undo claim when the submit fails after it;
 *   submit:  hand ready work to the device; report its end with
 *            halo_sdk_submission_complete.
 *
 * submit runs on the queue's worker thread, never inside a semaphore
 * callback, once per submission whose waits are all reached, in the order
 * they became ready. A submission whose wait failed never reaches submit.
 * Every submission retains the device, so a device destroys its queue only
 * when none exists (possibly on the worker thread, which the queue
 * handles). */
#ifndef HALO_SDK_C_QUEUE_H_
#define HALO_SDK_C_QUEUE_H_

#include <stddef.h>

#include "halo/device.h"
#include "halo/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct halo_sdk_queue_t halo_sdk_queue_t;
typedef struct halo_sdk_submission_t halo_sdk_submission_t;

typedef struct halo_sdk_queue_hooks_t {
  /* Passed to every hook. */
  void* context;
  /* May be NULL: then a submit naming any command buffer is
   * INVALID_ARGUMENT. */
  halo_status_t (*claim)(void* context, const halo_queue_execute_info_t* info);
  /* May be NULL when claim is. */
  void (*unclaim)(void* context, const halo_queue_execute_info_t* info);
  /* Starts the work of |submission| (its |count| command buffers, retained
   * until it completes) and returns; the plugin calls
   * halo_sdk_submission_complete once the device finished it, from any
   * thread, also from inside this hook. May be NULL: work without command
   * buffers only, completed at once. */
  void (*submit)(void* context, halo_sdk_submission_t* submission,
                 halo_command_buffer_t* const* command_buffers, size_t count);
} halo_sdk_queue_hooks_t;

/* Creates a queue (and its worker thread) with |hooks| (copied). */
halo_status_t halo_sdk_queue_create(const halo_host_interface_t* host,
                                    const halo_sdk_queue_hooks_t* hooks,
                                    halo_sdk_queue_t** out_queue);

/* Stops the worker and frees the queue. No submission may exist: call it
 * from the device's destroy. Accepts NULL. */
void halo_sdk_queue_destroy(halo_sdk_queue_t* queue);

/* The device vtable's queue_execute for |device| (retained by each
 * submission until it is done): |info| is already checked by libhalo.
 * Never blocks on the device. */
halo_status_t halo_sdk_queue_execute(halo_sdk_queue_t* queue,
                                     halo_device_t* device,
                                     const halo_queue_execute_info_t* info);

/* The device vtable's wait_idle: blocks until every submission made before
 * the call is done and has released what it held, or |deadline| passes
 * (DEADLINE_EXCEEDED). */
halo_status_t halo_sdk_queue_wait_idle(halo_sdk_queue_t* queue,
                                       halo_time_ns_t deadline);

/* Reports the end of a submitted submission, exactly once: |status| NULL
 * (OK) signals its signal semaphores, anything else fails them with copies
 * of it (ownership passes to the queue). */
void halo_sdk_submission_complete(halo_sdk_submission_t* submission,
                                  halo_status_t status);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HALO_SDK_C_QUEUE_H_ */
