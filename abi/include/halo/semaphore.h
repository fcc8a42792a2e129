/* Timeline semaphores and timepoints (DESIGN.md §4).
 *
 * A semaphore holds a uint64_t payload that only grows. Valid payloads are
 * 0 … HALO_SEMAPHORE_MAX_VALUE; a payload of HALO_SEMAPHORE_FAILURE_VALUE or
 * more means the semaphore failed, and it then carries a failure status that
 * every later query, signal and wait reports (the first failure wins).
 *
 * A timepoint is an asynchronous notification: the caller registers (value,
 * callback) on a semaphore and the callback runs exactly once, with OK when the
 * value is reached or with the failure status. Timepoints are what queue waits
 * on foreign semaphores, mixed multi-waits and fences are built on. */
#ifndef HALO_SEMAPHORE_H_
#define HALO_SEMAPHORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/deadline.h"
#include "halo/external_handle.h"
#include "halo/object.h"
#include "halo/status.h"

/* The largest valid payload: 2^63 - 1. */
#define HALO_SEMAPHORE_MAX_VALUE ((uint64_t)INT64_MAX)
/* Payloads at or above this mean "failed". */
#define HALO_SEMAPHORE_FAILURE_VALUE ((uint64_t)1 << 63)

/* How a multi-semaphore wait completes. */
typedef enum halo_wait_mode_e {
  /* OK once every (semaphore, value) pair is reached. */
  HALO_WAIT_MODE_ALL = 0,
  /* OK once any one pair is reached (a failed semaphore in the list comes
   * first: see halo_semaphores_wait). */
  HALO_WAIT_MODE_ANY = 1
} halo_wait_mode_t;

/* What a device can do with a semaphore (halo_device_semaphore_compatibility).
 * A device's own semaphores are HALO_SEMAPHORE_COMPATIBILITY_ALL, except one
 * it imported for device waits only, which is DEVICE_WAIT alone (external.h);
 * foreign ones are at least HOST_WAIT | HOST_SIGNAL, and DEVICE_WAIT where
 * libhalo can make the device wait on them natively (external.h, "Device-side
 * waits across plugins"). */
typedef enum halo_semaphore_compatibility_bits_e {
  HALO_SEMAPHORE_COMPATIBILITY_NONE = 0,
  HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT = 1 << 0,
  HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT = 1 << 1,
  HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL = 1 << 2,
  HALO_SEMAPHORE_COMPATIBILITY_DEVICE_SIGNAL = 1 << 3,
  HALO_SEMAPHORE_COMPATIBILITY_ALL = 0xF
} halo_semaphore_compatibility_bits_t;
typedef uint32_t halo_semaphore_compatibility_t;

typedef struct halo_timepoint_t halo_timepoint_t;

/* Runs exactly once per registered timepoint. |status| is NULL when the value
 * was reached, else the semaphore's failure status; the callback takes
 * ownership of it. Runs on an arbitrary thread (inline in the registering
 * thread when already reached), must be short and must never block. The
 * semaphore does not touch |timepoint| after the callback starts, so the
 * callback may free it — unless someone may still cancel it (see
 * halo_timepoint_t).
 *
 * Cancelling from inside a callback: a cancel never waits for callbacks
 * running on its own thread, but it does wait for callbacks running on other
 * threads — of that timepoint, or, on some devices, of any timepoint of
 * that semaphore. So two callbacks on two threads that
 * each cancel a timepoint the other's signal or fail is dispatching wait for
 * each other for ever. A callback may always cancel timepoints of its own
 * dispatch (released by the same signal or fail on this thread) whose
 * callbacks have not started: they are dropped at once. Any other cancel
 * from a callback is allowed only for a semaphore that no other thread
 * signals or fails meanwhile, or where no callback ever cancels. */
typedef void (*halo_timepoint_callback_t)(void* user_data,
                                          halo_timepoint_t* timepoint,
                                          halo_status_t status);

/* Caller-owned storage for one registration: registering allocates nothing.
 * The caller fills struct_size, value, callback and user_data; the semaphore
 * owns |implementation| while the timepoint is registered, and recognises its
 * own registrations by it, so the caller must not write it then.
 *
 * Lifetime: the storage must stay valid until the callback starts and, when
 * anyone may cancel the timepoint, until every such cancel has returned —
 * whether it returns true or false: a cancel reads the storage (under the
 * semaphore's lock) to learn the timepoint's state, even when the callback
 * has already run. So a callback may free its own timepoint only when no
 * cancel of it can follow or be in progress. */
struct halo_timepoint_t {
  uint32_t struct_size;
  uint32_t reserved0;
  /* The payload to wait for (0 … HALO_SEMAPHORE_MAX_VALUE). */
  uint64_t value;
  halo_timepoint_callback_t callback;
  void* user_data;
  /* Private to the semaphore implementation while registered. */
  uintptr_t implementation[8];
  /* --- ABI 1.0 ends here. --- */
};

/* The semaphore vtable a plugin implements. Every entry is required. */
typedef struct halo_semaphore_vtable_t {
  halo_object_vtable_t object;
  /* Never blocks. OK and the payload; on a failed semaphore returns a copy of
   * the failure status and stores a value >= HALO_SEMAPHORE_FAILURE_VALUE. */
  halo_status_t (*query)(halo_semaphore_t* semaphore, uint64_t* out_value);
  /* |value| is already checked against 1 … MAX by libhalo. */
  halo_status_t (*signal)(halo_semaphore_t* semaphore, uint64_t value);
  /* Takes ownership of |status| (never NULL). */
  void (*fail)(halo_semaphore_t* semaphore, halo_status_t status);
  halo_status_t (*wait)(halo_semaphore_t* semaphore, uint64_t value,
                        halo_time_ns_t deadline);
  /* Registers |timepoint| (caller-owned; see halo_timepoint_t). Runs the
   * callback inline when already reached or failed. */
  halo_status_t (*acquire_timepoint)(halo_semaphore_t* semaphore,
                                     halo_timepoint_t* timepoint);
  /* Returns true if the callback will never run; false once it has run to
   * completion (waits for a callback running on another thread; see
   * halo_timepoint_callback_t for cancels from inside a callback). Also
   * returns false, without effect, for a timepoint not registered on
   * |semaphore| now: one never registered (its implementation words zeroed,
   * or left by a registration elsewhere), already cancelled, or already
   * called back, inline included. */
  bool (*cancel_timepoint)(halo_semaphore_t* semaphore,
                           halo_timepoint_t* timepoint);
  /* Returns the device that created |semaphore| (borrowed). */
  halo_device_t* (*device)(halo_semaphore_t* semaphore);
  /* --- ABI 1.0 ends here. --- */
  /* halo_semaphore_export (may be NULL: UNIMPLEMENTED): |type| is one known
   * bit, |out_handle| is libhalo's own full-size struct. */
  halo_status_t (*export_handle)(halo_semaphore_t* semaphore,
                                 halo_external_handle_type_t type,
                                 halo_external_handle_t* out_handle);
  /* --- ABI 1.3 ends here. --- */
  /* May be NULL (never committed). Never blocks. True when the payload
   * already is at least |value|, or when work that signals |value| or more
   * has been handed to the semaphore's device with every one of its waits
   * reached, so that only the device itself brings the payload there (and
   * only the device's loss, or halo_semaphore_fail, can fail it instead);
   * false otherwise, and on a failed semaphore. libhalo asks it before it
   * lets another plugin's device wait on an import of the semaphore
   * (external.h). */
  bool (*signal_committed)(halo_semaphore_t* semaphore, uint64_t value);
  /* --- ABI 1.5 ends here. --- */
} halo_semaphore_vtable_t;

/* Semaphore creation flags (reserved for growth). */
typedef uint64_t halo_semaphore_flags_t;
#define HALO_SEMAPHORE_FLAG_NONE ((halo_semaphore_flags_t)0)
/* Created so that halo_semaphore_export (external.h) can export it as every
 * type of the device's semaphore_export_types (ABI 1.3); refused with
 * UNIMPLEMENTED by a device that exports none. */
#define HALO_SEMAPHORE_FLAG_EXPORTABLE ((halo_semaphore_flags_t)1u << 0)
/* Every flag bit defined: none in ABI 1.0, EXPORTABLE since 1.3.
 * halo_semaphore_create refuses any other bit with INVALID_ARGUMENT, so that
 * a bit can be given a meaning later. A new flag is appended here and to
 * this mask. */
#define HALO_SEMAPHORE_FLAGS_KNOWN ((halo_semaphore_flags_t)0x1u)

/* Creates a semaphore on |device| (borrowed) with payload |initial_value|.
 * Returns a new reference in |out_semaphore|. Thread-safe.
 * Returns INVALID_ARGUMENT if |device| is not a device, |out_semaphore| is NULL,
 * |initial_value| > HALO_SEMAPHORE_MAX_VALUE or |flags| has bits outside
 * HALO_SEMAPHORE_FLAGS_KNOWN; INTERNAL naming the plugin if the plugin hands
 * over a semaphore that breaks the ABI (see halo_driver_create_device). */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_create(
    halo_device_t* device, uint64_t initial_value, halo_semaphore_flags_t flags,
    halo_semaphore_t** out_semaphore);
/* Retains |semaphore|. Accepts NULL. */
HALO_API void halo_semaphore_retain(halo_semaphore_t* semaphore);
/* Releases |semaphore|. Accepts NULL. Work in flight keeps its own references. */
HALO_API void halo_semaphore_release(halo_semaphore_t* semaphore);

/* Stores the payload in |out_value|; never blocks. Borrows |semaphore|.
 * Thread-safe. Returns INVALID_ARGUMENT for a NULL or wrong-type handle or a
 * NULL |out_value|; a copy of the failure status (and a failure value) if the
 * semaphore failed. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_query(
    halo_semaphore_t* semaphore, uint64_t* out_value);

/* Sets the payload to |value| and wakes every waiter and timepoint it reaches.
 * Borrows |semaphore|. Thread-safe. Returns INVALID_ARGUMENT (payload
 * unchanged) if |value| is not greater than the payload or is above
 * HALO_SEMAPHORE_MAX_VALUE; a copy of the failure status if failed. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_signal(
    halo_semaphore_t* semaphore, uint64_t value);

/* Fails |semaphore|; takes ownership of |status|. The first failure wins and
 * later ones are freed. Every waiter and timepoint wakes with the failure.
 * Returns INVALID_ARGUMENT for a bad handle or an OK (NULL) status, freeing
 * |status|. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_fail(
    halo_semaphore_t* semaphore, halo_status_t status);

/* Blocks until the payload is >= |value| (OK), |deadline| passes
 * (DEADLINE_EXCEEDED) or the semaphore fails (a copy of the failure status).
 * HALO_DEADLINE_INFINITE_PAST polls: it never blocks and never allocates.
 * Borrows |semaphore|. Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_wait(
    halo_semaphore_t* semaphore, uint64_t value, halo_time_ns_t deadline);

/* Waits on |count| (semaphore, value) pairs: ALL or ANY per |mode|. An empty
 * list is OK at once. Semaphores of different devices and plugins may be mixed.
 * A failure comes first: a wait that finds a failed semaphore in the list
 * returns a copy of its failure status, in ANY mode too while another pair is
 * reached (a wait that has already returned OK is not undone by a later
 * failure). Borrows every semaphore. Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphores_wait(
    halo_wait_mode_t mode, size_t count, halo_semaphore_t* const* semaphores,
    const uint64_t* values, halo_time_ns_t deadline);

/* Registers |timepoint| (see halo_timepoint_t) on |semaphore|, which must stay
 * alive until the callback ran or the timepoint was cancelled. Returns
 * INVALID_ARGUMENT for a bad handle, a NULL timepoint or callback, a small
 * struct_size, or a value above MAX. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_acquire_timepoint(
    halo_semaphore_t* semaphore, halo_timepoint_t* timepoint);

/* Cancels |timepoint|. Race-free: on return the callback has either run to
 * completion (*out_cancelled = false) or will never run (true).
 * *out_cancelled is also false for a timepoint that is not registered on
 * |semaphore|: never registered (zero-initialise the storage, e.g.
 * `halo_timepoint_t timepoint = {0};`), already cancelled, or already called
 * back. The storage must stay valid until this returns, even when the
 * callback already ran (see halo_timepoint_t). Must not be called from inside
 * a callback of the same semaphore for the same timepoint, nor, from inside
 * any callback, for a timepoint another thread may be dispatching (see
 * halo_timepoint_callback_t). Returns INVALID_ARGUMENT for a bad handle or a
 * NULL |timepoint|. */
HALO_API HALO_MUST_USE halo_status_t halo_semaphore_cancel_timepoint(
    halo_semaphore_t* semaphore, halo_timepoint_t* timepoint, bool*
    out_cancelled);

#endif /* HALO_SEMAPHORE_H_ */
