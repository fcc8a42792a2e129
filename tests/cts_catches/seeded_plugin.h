/* seeded_plugin.h: what the seeded-bug plugin's files share (seeded_bug_plugin.c,
 * whose comment says what the plugin is; seeded_semaphore.c): its configuration, small
 * helpers and its object types. Every function here is static inline, so each file
 * stays self-contained C11 against any copy of halo's public headers. Include it
 * first, after defining _POSIX_C_SOURCE. */
#ifndef HALO_SEEDED_PLUGIN_H_
#define HALO_SEEDED_PLUGIN_H_


#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "halo/plugin.h"
#include "halo/semaphore.h"
#if defined(TEMPLATE_COMMAND_BUFFERS)
#include "seeded_commands.h"
#endif

/* VENDOR: your plugin's name and version. */
#ifndef TEMPLATE_PLUGIN_NAME
#define TEMPLATE_PLUGIN_NAME "template"
#endif
#define TEMPLATE_PLUGIN_VERSION "0.1.0"
#ifndef TEMPLATE_ABI_VERSION
#define TEMPLATE_ABI_VERSION HALO_ABI_VERSION
#endif

/* TEST HOOK: proves a build used the header copy it was meant to use. */
#if defined(TEMPLATE_EXPECT_HEADER_ABI_MINOR) && \
    (HALO_ABI_VERSION_MAJOR != 1 || HALO_ABI_VERSION_MINOR != TEMPLATE_EXPECT_HEADER_ABI_MINOR)
#error "compiled against the wrong halo headers"
#endif

/* The only device. Ids start at 1 so that 0 is never valid. */
#define TEMPLATE_DEVICE_ID ((halo_device_id_t)1)

/* ---- Helpers ----------------------------------------------------------------------- */

static inline void* host_allocate(const halo_host_interface_t* host, size_t size) {
  return host->allocator.allocate(host->allocator.self, size, 16);
}

static inline void host_free(const halo_host_interface_t* host, void* pointer) {
  host->allocator.free(host->allocator.self, pointer);
}

static inline halo_status_t out_of_memory(const halo_host_interface_t* host) {
  return host->status_create(HALO_STATUS_RESOURCE_EXHAUSTED,
                             TEMPLATE_PLUGIN_NAME ": out of memory");
}

/* Copies |text| into a fixed-size field, always NUL-terminated. */
static inline void copy_string(char* target, size_t capacity, const char* text) {
  size_t length = strlen(text);
  if (length >= capacity) length = capacity - 1;
  memcpy(target, text, length);
  target[length] = '\0';
}

/* Copies a fully filled |source| struct into the caller's |target|, whose struct_size
 * (|target_size|) says how much the caller knows: the members both sides know are
 * written, nothing past them, and struct_size is set to what was written (§2.2). */
static inline void copy_out(void* target, uint32_t target_size, void* source,
                     uint32_t source_size) {
  uint32_t size = target_size < source_size ? target_size : source_size;
  if (size < sizeof(uint32_t)) return;
  memcpy(source, &size, sizeof(size)); /* struct_size is the first member. */
  memcpy(target, source, size);
}

/* Every object starts with a header: one reference (the creator's) and its vtable. */
static inline void object_init(halo_object_t* object, const void* vtable) {
  object->ref_count = 1;
  object->reserved0 = 0;
  object->vtable = (const halo_object_vtable_t*)vtable;
}

/* Any plugin's semaphore is used only through its own vtable. */
static inline const halo_semaphore_vtable_t* semaphore_vtable_of(halo_semaphore_t* semaphore) {
  return (const halo_semaphore_vtable_t*)((halo_object_t*)semaphore)->vtable;
}

/* Condition variables that time out on CLOCK_MONOTONIC, the clock of deadlines (the
 * default, CLOCK_REALTIME, jumps with the wall clock). With default attributes the
 * pthread initialisers cannot fail on Linux, so their results are not checked. */
static inline void cond_init_monotonic(pthread_cond_t* cond) {
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(cond, &attributes);
  pthread_condattr_destroy(&attributes);
}

/* TEST HOOK (TEMPLATE_BREAK_POLL_BLOCKS): every wait treats a poll as an infinite
 * wait, so a poll that misses hangs. The CTS must time it out. */
static inline halo_time_ns_t effective_deadline(halo_time_ns_t deadline) {
#if defined(TEMPLATE_BREAK_POLL_BLOCKS)
  if (deadline == HALO_DEADLINE_INFINITE_PAST) return HALO_DEADLINE_INFINITE_FUTURE;
#endif
  return deadline;
}

#if defined(TEMPLATE_BREAK_POLL_ALLOCATES) || defined(TEMPLATE_BREAK_QUERY_ALLOCATES) || \
    defined(TEMPLATE_BREAK_SIGNAL_ALLOCATES)
/* TEST HOOK (TEMPLATE_BREAK_POLL_ALLOCATES, _QUERY_ALLOCATES, _SIGNAL_ALLOCATES): the
 * path takes a scratch block from the host allocator and gives it back, so nothing
 * leaks, but a poll, query or host signal that must make no allocation (DESIGN.md §8)
 * makes one. The CTS's counting allocator must see it. */
static inline void scratch_allocation(const halo_host_interface_t* host) {
  host_free(host, host_allocate(host, 64));
}
#endif

/* Blocks on |cond| (|mutex| held) until woken or the absolute |deadline|. Returns false
 * once the deadline has passed; callers re-check their condition after every return,
 * so spurious wake-ups are harmless. A poll (infinite past) returns false at once. */
static inline bool cond_wait_until(const halo_host_interface_t* host, pthread_cond_t* cond,
                            pthread_mutex_t* mutex, halo_time_ns_t deadline) {
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE) {
    pthread_cond_wait(cond, mutex);
    return true;
  }
  if (deadline == HALO_DEADLINE_INFINITE_PAST || host->time_now_ns() >= deadline) {
    return false;
  }
  const struct timespec until = {.tv_sec = (time_t)(deadline / 1000000000),
                                 .tv_nsec = (long)(deadline % 1000000000)};
  return pthread_cond_timedwait(cond, mutex, &until) != ETIMEDOUT;
}

/* The "not yet" of every wait: an immortal status, since a poll must not allocate. */
static inline halo_status_t deadline_exceeded(const halo_host_interface_t* host) {
  return host->status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

/* Keeps this library mapped while a thread it started can still run its code: a worker
 * may drop the plugin's last object (letting the loader dlclose the library) and then
 * return through this file. glibc does not unmap a library while one of its threads
 * has a thread-exit destructor from it pending (what keeps C++ thread_local destructors
 * safe), so each worker registers an empty one. Elsewhere set HALO_DISABLE_UNLOAD=1. */
#if defined(__GLIBC__)
extern void* __dso_handle __attribute__((visibility("hidden")));
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso_symbol);
static inline void unpin_library(void* unused) { (void)unused; }
static inline void pin_library_to_this_thread(void) {
  __cxa_thread_atexit_impl(unpin_library, NULL, &__dso_handle);
}
#else
static inline void pin_library_to_this_thread(void) {}
#endif

/* ---- Objects ----------------------------------------------------------------------- */

typedef struct template_driver_t {
  halo_object_t object; /* First: every halo object starts with its header. */
  const halo_host_interface_t* host;
} template_driver_t;

typedef struct template_submission_t template_submission_t;

typedef struct template_device_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  halo_driver_t* driver; /* Retained: the driver outlives its devices. */
  pthread_mutex_t mutex; /* Guards everything below. */
  /* Bumped, and |changed| broadcast, whenever a semaphore of this device is signalled
   * or failed: multi-semaphore waits sleep on it. */
  uint64_t generation;
  pthread_cond_t changed;
  /* The queue: submissions ready for the worker, in order; and every submission not
   * yet completed, oldest first (for wait_idle). */
  template_submission_t* ready_head;
  template_submission_t* ready_tail;
  template_submission_t* in_flight_head;
  template_submission_t* in_flight_tail;
  uint64_t next_sequence;
  pthread_cond_t work_ready; /* Wakes the worker. */
  pthread_cond_t progress;   /* Wakes wait_idle. */
  bool stopping;
  pthread_t worker;
#if defined(TEMPLATE_BREAK_DEVICE_HELD_AFTER_IDLE)
  size_t held_device_references; /* The worker's own. */
#endif
} template_device_t;

/* A list of timepoints, linked through their own implementation[] words: registering
 * a timepoint allocates nothing. */
typedef struct timepoint_list_t {
  halo_timepoint_t* head;
  halo_timepoint_t* tail;
} timepoint_list_t;

typedef struct template_semaphore_t {
  halo_object_t object;
  const halo_host_interface_t* host;
  template_device_t* device; /* Retained. */
  pthread_mutex_t mutex;     /* Guards every member but |value|'s reads. */
  pthread_cond_t changed;    /* Wakes waiters: new value or failure. */
  /* The payload, or HALO_SEMAPHORE_FAILURE_VALUE once failed. Written under the mutex,
   * read without it by query and the fast paths. */
  _Atomic uint64_t value;
  /* The first failure: set once, before |value| becomes the failure value, and never
   * changed again, so whoever saw the failure value may clone it without the lock. */
  halo_status_t failure;
  timepoint_list_t pending;      /* Registered; value not reached yet. */
  timepoint_list_t dispatching;  /* Resolved; callback not started yet. */
  uint32_t callbacks_running;    /* Callbacks executing right now... */
  pthread_cond_t callbacks_done; /* ...and the signal that the count dropped. */
} template_semaphore_t;

/* ---- Semaphore (seeded_semaphore.c) ------------------------------------------------ */

/* The vtable of this plugin's semaphores: a semaphore is this plugin's when its
 * vtable is this one. */
extern const halo_semaphore_vtable_t seeded_semaphore_vtable
    __attribute__((visibility("hidden")));

/* Creates a semaphore of |device| (retained) with |initial_value|, which libhalo has
 * checked against HALO_SEMAPHORE_MAX_VALUE. */
halo_status_t seeded_semaphore_create(template_device_t* device, uint64_t initial_value,
                                      halo_semaphore_t** out_semaphore)
    __attribute__((visibility("hidden")));

#endif /* HALO_SEEDED_PLUGIN_H_ */
