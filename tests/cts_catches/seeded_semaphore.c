/* seeded_semaphore.c: the seeded-bug plugin's timeline semaphores (see
 * seeded_bug_plugin.c): host-only, a mutex and a condition variable each, timepoints
 * linked through their own words, and the TEMPLATE_BREAK_* hooks of the semaphore
 * contract. */
#define _POSIX_C_SOURCE 200809L

#include "seeded_plugin.h"

/* ---- Timepoint lists --------------------------------------------------------------- */

/* The implementation[] words in use while a timepoint is registered here. */
enum { TP_NEXT, TP_PREV, TP_LIST, TP_RESULT, TP_OWNER };
enum { TP_IN_NO_LIST, TP_IN_PENDING, TP_IN_DISPATCHING }; /* TP_LIST values. */
enum { TP_REACHED, TP_FAILED };                            /* TP_RESULT values. */

static halo_timepoint_t* tp_link(halo_timepoint_t* timepoint, int word) {
  return (halo_timepoint_t*)timepoint->implementation[word];
}

static void list_push_back(timepoint_list_t* list, halo_timepoint_t* timepoint,
                           uintptr_t list_id) {
  timepoint->implementation[TP_NEXT] = 0;
  timepoint->implementation[TP_PREV] = (uintptr_t)list->tail;
  timepoint->implementation[TP_LIST] = list_id;
  if (list->tail != NULL) {
    list->tail->implementation[TP_NEXT] = (uintptr_t)timepoint;
  } else {
    list->head = timepoint;
  }
  list->tail = timepoint;
}

static void list_remove(timepoint_list_t* list, halo_timepoint_t* timepoint) {
  halo_timepoint_t* next = tp_link(timepoint, TP_NEXT);
  halo_timepoint_t* previous = tp_link(timepoint, TP_PREV);
  if (previous != NULL) {
    previous->implementation[TP_NEXT] = (uintptr_t)next;
  } else {
    list->head = next;
  }
  if (next != NULL) {
    next->implementation[TP_PREV] = (uintptr_t)previous;
  } else {
    list->tail = previous;
  }
  timepoint->implementation[TP_LIST] = TP_IN_NO_LIST;
}

/* Moves a pending |timepoint| to the dispatching list. Lock held. */
static void resolve_timepoint(template_semaphore_t* semaphore, halo_timepoint_t* timepoint,
                              uintptr_t result) {
  list_remove(&semaphore->pending, timepoint);
  timepoint->implementation[TP_RESULT] = result;
  list_push_back(&semaphore->dispatching, timepoint, TP_IN_DISPATCHING);
}

/* ---- Semaphore --------------------------------------------------------------------- */

/* The callbacks this thread is running right now, innermost first: a cancel called
 * from inside a callback must not wait for that callback to return. */
typedef struct dispatch_frame_t {
  template_semaphore_t* semaphore;
  struct dispatch_frame_t* outer;
} dispatch_frame_t;
static _Thread_local dispatch_frame_t* t_dispatch_frames = NULL;

static uint32_t callbacks_running_on_this_thread(template_semaphore_t* semaphore) {
  uint32_t count = 0;
  for (dispatch_frame_t* frame = t_dispatch_frames; frame; frame = frame->outer) {
    count += frame->semaphore == semaphore;
  }
  return count;
}

/* Runs the callback of every resolved timepoint, one at a time and outside the lock
 * (a callback may signal, query or register on this very semaphore). Each is popped
 * under the lock and counted in |callbacks_running| until it returns, so that cancel
 * can wait for it. Once its callback starts, a timepoint is never touched again: the
 * callback may free it. */
static void semaphore_dispatch(template_semaphore_t* semaphore) {
  pthread_mutex_lock(&semaphore->mutex);
  halo_timepoint_t* timepoint;
  while ((timepoint = semaphore->dispatching.head) != NULL) {
    list_remove(&semaphore->dispatching, timepoint);
    const bool failed = timepoint->implementation[TP_RESULT] == TP_FAILED;
    halo_timepoint_callback_t callback = timepoint->callback;
    void* user_data = timepoint->user_data;
    ++semaphore->callbacks_running;
    pthread_mutex_unlock(&semaphore->mutex);

    /* The failure never changes once set, so it is cloned outside the lock. */
    halo_status_t status = failed ? semaphore->host->status_clone(semaphore->failure)
                                  : HALO_OK;
#if defined(TEMPLATE_BREAK_TIMEPOINT_FAILURE_AS_REACHED)
    /* TEST HOOK: a timepoint on a failed semaphore is told it was reached. */
    semaphore->host->status_free(status);
    status = HALO_OK;
#endif
    dispatch_frame_t frame = {semaphore, t_dispatch_frames};
    t_dispatch_frames = &frame;
    callback(user_data, timepoint, status); /* Takes ownership of |status|. */
    t_dispatch_frames = frame.outer;
#if defined(TEMPLATE_BREAK_TIMEPOINT_WRITTEN_AFTER_CALLBACK)
    /* TEST HOOK: the timepoint is marked as in no list once its callback
     * returned, in storage the callback may have freed or reused. */
    timepoint->implementation[TP_LIST] = TP_IN_NO_LIST;
#endif

    pthread_mutex_lock(&semaphore->mutex);
    if (--semaphore->callbacks_running == 0) {
      pthread_cond_broadcast(&semaphore->callbacks_done);
    }
  }
  pthread_mutex_unlock(&semaphore->mutex);
}

/* Wakes multi-semaphore waiters of |device|. Called after the new value is stored, so
 * a waiter that read the generation before checking the values cannot miss it. */
static void device_notify_changed(template_device_t* device) {
  pthread_mutex_lock(&device->mutex);
  ++device->generation;
  pthread_cond_broadcast(&device->changed);
  pthread_mutex_unlock(&device->mutex);
}

/* Registered timepoints keep their semaphore alive (semaphore.h), so none is left. */
static void semaphore_destroy(halo_object_t* object) {
  template_semaphore_t* semaphore = (template_semaphore_t*)object;
  const halo_host_interface_t* host = semaphore->host;
  template_device_t* device = semaphore->device;
  host->status_free(semaphore->failure);
  pthread_cond_destroy(&semaphore->callbacks_done);
  pthread_cond_destroy(&semaphore->changed);
  pthread_mutex_destroy(&semaphore->mutex);
  host_free(host, semaphore);
  host->object_release(&device->object);
}

/* Never blocks: one atomic load. */
static halo_status_t semaphore_query(halo_semaphore_t* base, uint64_t* out_value) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
#if defined(TEMPLATE_BREAK_QUERY_ALLOCATES)
  scratch_allocation(semaphore->host);
#endif
  const uint64_t value = atomic_load_explicit(&semaphore->value, memory_order_acquire);
  *out_value = value;
  if (value >= HALO_SEMAPHORE_FAILURE_VALUE) {
    return semaphore->host->status_clone(semaphore->failure);
  }
  return HALO_OK;
}

/* libhalo has checked |value| against 1 … HALO_SEMAPHORE_MAX_VALUE. */
static halo_status_t semaphore_signal(halo_semaphore_t* base, uint64_t value) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
  const halo_host_interface_t* host = semaphore->host;
#if defined(TEMPLATE_BREAK_SIGNAL_ALLOCATES)
  scratch_allocation(host);
#endif
#if defined(TEMPLATE_BREAK_SIGNAL_CHECK_THEN_STORE)
  /* TEST HOOK: the monotonic check reads the payload before the lock is taken
   * and the store under the lock trusts it, so two signals racing for the
   * same next value both pass. The yield stands for a preemption between the
   * two steps. */
  {
    const uint64_t seen = atomic_load_explicit(&semaphore->value, memory_order_acquire);
    if (seen < HALO_SEMAPHORE_FAILURE_VALUE && value <= seen) {
      return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                                 TEMPLATE_PLUGIN_NAME ": signal value %llu is not above "
                                 "the payload %llu", (unsigned long long)value,
                                 (unsigned long long)seen);
    }
    sched_yield();
  }
#endif
  pthread_mutex_lock(&semaphore->mutex);
  uint64_t current = atomic_load_explicit(&semaphore->value, memory_order_relaxed);
  if (semaphore->failure != NULL) {
#if defined(TEMPLATE_BREAK_FAILURE_NOT_STICKY)
    /* TEST HOOK: a signal "repairs" a failed semaphore. The status is leaked on
     * purpose: a concurrent query may still be cloning it. */
    semaphore->failure = NULL;
    current = 0;
#else
    halo_status_t copy = host->status_clone(semaphore->failure);
    pthread_mutex_unlock(&semaphore->mutex);
    return copy;
#endif
  }
#if defined(TEMPLATE_BREAK_SIGNAL_ALLOWS_LOWER) || defined(TEMPLATE_BREAK_SIGNAL_CHECK_THEN_STORE)
  (void)current; /* TEST HOOK: no monotonicity check here; the payload may go down. */
#else
  if (value <= current) {
    pthread_mutex_unlock(&semaphore->mutex);
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               TEMPLATE_PLUGIN_NAME ": signal value %llu is not above the "
                               "payload %llu", (unsigned long long)value,
                               (unsigned long long)current);
  }
#endif
  atomic_store_explicit(&semaphore->value, value, memory_order_release);
  for (halo_timepoint_t *timepoint = semaphore->pending.head, *next; timepoint != NULL;
       timepoint = next) {
    next = tp_link(timepoint, TP_NEXT);
    if (timepoint->value <= value) resolve_timepoint(semaphore, timepoint, TP_REACHED);
  }
  pthread_cond_broadcast(&semaphore->changed);
  pthread_mutex_unlock(&semaphore->mutex);
  semaphore_dispatch(semaphore);
  device_notify_changed(semaphore->device);
  return HALO_OK;
}

/* Takes ownership of |status|. The first failure wins; later ones are freed. */
static void semaphore_fail(halo_semaphore_t* base, halo_status_t status) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
  pthread_mutex_lock(&semaphore->mutex);
  if (semaphore->failure != NULL) {
    pthread_mutex_unlock(&semaphore->mutex);
    semaphore->host->status_free(status);
    return;
  }
  semaphore->failure = status;
  atomic_store_explicit(&semaphore->value, HALO_SEMAPHORE_FAILURE_VALUE,
                        memory_order_release);
  while (semaphore->pending.head != NULL) {
    resolve_timepoint(semaphore, semaphore->pending.head, TP_FAILED);
  }
  pthread_cond_broadcast(&semaphore->changed);
  pthread_mutex_unlock(&semaphore->mutex);
  semaphore_dispatch(semaphore);
  device_notify_changed(semaphore->device);
}

static halo_status_t semaphore_wait(halo_semaphore_t* base, uint64_t value,
                                    halo_time_ns_t deadline) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
  const halo_host_interface_t* host = semaphore->host;
#if defined(TEMPLATE_BREAK_POLL_ALLOCATES)
  if (deadline == HALO_DEADLINE_INFINITE_PAST) scratch_allocation(host);
#endif
  deadline = effective_deadline(deadline);
  /* Fast path, without the lock: already reached. */
  const uint64_t seen = atomic_load_explicit(&semaphore->value, memory_order_acquire);
  if (seen >= value && seen < HALO_SEMAPHORE_FAILURE_VALUE) return HALO_OK;

  halo_status_t result = HALO_OK;
  bool timed_out = false;
  pthread_mutex_lock(&semaphore->mutex);
  for (;;) {
    if (semaphore->failure != NULL) {
      result = host->status_clone(semaphore->failure);
      break;
    }
    if (atomic_load_explicit(&semaphore->value, memory_order_relaxed) >= value) break;
    if (timed_out) {
#if !defined(TEMPLATE_BREAK_WAIT_IGNORES_DEADLINE) /* TEST HOOK: else "reached". */
      result = deadline_exceeded(host);
#endif
      break;
    }
    timed_out = !cond_wait_until(host, &semaphore->changed, &semaphore->mutex, deadline);
  }
  pthread_mutex_unlock(&semaphore->mutex);
  return result;
}

/* Registers |timepoint|. Its callback runs inline when the value is already reached
 * or the semaphore has failed. */
static halo_status_t semaphore_acquire_timepoint(halo_semaphore_t* base,
                                                 halo_timepoint_t* timepoint) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
  memset(timepoint->implementation, 0, sizeof(timepoint->implementation));
  timepoint->implementation[TP_OWNER] = (uintptr_t)semaphore;
  pthread_mutex_lock(&semaphore->mutex);
  list_push_back(&semaphore->pending, timepoint, TP_IN_PENDING);
  if (semaphore->failure != NULL) {
    resolve_timepoint(semaphore, timepoint, TP_FAILED);
  } else if (atomic_load_explicit(&semaphore->value, memory_order_relaxed) >=
             timepoint->value) {
    resolve_timepoint(semaphore, timepoint, TP_REACHED);
  }
  const bool resolved = timepoint->implementation[TP_LIST] == TP_IN_DISPATCHING;
  pthread_mutex_unlock(&semaphore->mutex);
  if (resolved) semaphore_dispatch(semaphore);
  return HALO_OK;
}

/* Returns true when the callback will never run, false once it has run to completion.
 * A timepoint still in a list is simply removed. Otherwise its callback was popped
 * (and counted as running) or has finished: waiting until no callback of this
 * semaphore runs, except this thread's own, covers both. */
static bool semaphore_cancel_timepoint(halo_semaphore_t* base, halo_timepoint_t* timepoint) {
  template_semaphore_t* semaphore = (template_semaphore_t*)base;
  pthread_mutex_lock(&semaphore->mutex);
#if defined(TEMPLATE_BREAK_CANCEL_IGNORES_OWNER)
  /* TEST HOOK: the list word is trusted without the owner's, so a cancel on
   * another semaphore unlinks the timepoint from a list that is not its own. */
  if (true) {
#else
  if (timepoint->implementation[TP_OWNER] == (uintptr_t)semaphore) {
#endif
    const uintptr_t list = timepoint->implementation[TP_LIST];
#if defined(TEMPLATE_BREAK_CANCEL_MISSES_DISPATCHING)
    /* TEST HOOK: a resolved timepoint is taken for one whose callback ran, so a
     * callback cancelling another of its own dispatch drops nothing. */
    if (list == TP_IN_PENDING) {
#else
    if (list == TP_IN_PENDING || list == TP_IN_DISPATCHING) {
#endif
      list_remove(list == TP_IN_PENDING ? &semaphore->pending : &semaphore->dispatching,
                  timepoint);
      pthread_mutex_unlock(&semaphore->mutex);
      return true;
    }
  }
  const uint32_t own = callbacks_running_on_this_thread(semaphore);
#if defined(TEMPLATE_BREAK_CANCEL_SKIPS_WAIT)
  /* TEST HOOK: no wait for callbacks running on other threads, so the cancel
   * returns false while the callback may still be running. */
  (void)own;
#else
  while (semaphore->callbacks_running > own) {
    pthread_cond_wait(&semaphore->callbacks_done, &semaphore->mutex);
  }
#endif
  pthread_mutex_unlock(&semaphore->mutex);
  return false;
}

static halo_device_t* semaphore_device(halo_semaphore_t* base) {
  return (halo_device_t*)((template_semaphore_t*)base)->device;
}

const halo_semaphore_vtable_t seeded_semaphore_vtable = {
    .object = {.struct_size = sizeof(halo_semaphore_vtable_t),
               .type = HALO_OBJECT_TYPE_SEMAPHORE,
               .destroy = semaphore_destroy},
    .query = semaphore_query,
    .signal = semaphore_signal,
    .fail = semaphore_fail,
    .wait = semaphore_wait,
    .acquire_timepoint = semaphore_acquire_timepoint,
    .cancel_timepoint = semaphore_cancel_timepoint,
    .device = semaphore_device,
};

halo_status_t seeded_semaphore_create(template_device_t* device, uint64_t initial_value,
                                      halo_semaphore_t** out_semaphore) {
  const halo_host_interface_t* host = device->host;
  *out_semaphore = NULL;
  template_semaphore_t* semaphore = host_allocate(host, sizeof(*semaphore));
  if (semaphore == NULL) return out_of_memory(host);
  memset(semaphore, 0, sizeof(*semaphore));
  object_init(&semaphore->object, &seeded_semaphore_vtable);
  semaphore->host = host;
  semaphore->device = device;
  host->object_retain(&device->object);
  pthread_mutex_init(&semaphore->mutex, NULL);
  cond_init_monotonic(&semaphore->changed);
  pthread_cond_init(&semaphore->callbacks_done, NULL);
  atomic_init(&semaphore->value, initial_value);
  *out_semaphore = (halo_semaphore_t*)semaphore;
  return HALO_OK;
}
