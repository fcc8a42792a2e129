/* seeded_bug_plugin.c: a self-contained C11 halo plugin into which halo's own tests seed
 * bugs and header variants. It is not for vendors: their starting point is
 * examples/template_plugin/ (a file per object, on the plugin SDK's C interface).
 *
 * The plugin needs nothing but halo's public headers (no plugin SDK), so it can be built
 * against any copy of them, and every bug is one #if away. It offers one driver with one
 * device ("template device", type OTHER) and:
 *   - host-only timeline semaphores (a mutex and a condition variable each) following
 *     DESIGN.md §4: monotonic signal, sticky first-wins failure, absolute
 *     CLOCK_MONOTONIC deadlines, polls that never block, timepoints with a race-free
 *     cancel;
 *   - one barrier-only queue (DESIGN.md §5): a submission waits through timepoints on
 *     semaphores of any plugin, then a worker thread signals (or fails) its signal
 *     semaphores. No buffers, command buffers or executables, unless built with
 *     TEMPLATE_COMMAND_BUFFERS and seeded_commands.c: then host buffers, cpu-so
 *     executables and command buffers, whose commands the worker runs one after
 *     another in recording order before it signals.
 * Built without any TEST HOOK define it passes every halo-cts case its capabilities
 * claim. (It was the vendor template once, hence the TEMPLATE_ prefix of its defines
 * and the "VENDOR:" notes left in it.)
 *
 * TEST HOOKS, the defines its users set:
 *   - tests/cts_catches: TEMPLATE_BREAK_* (one deliberate bug each, which halo-cts must
 *     report as a FAIL, CRASH or TIMEOUT), and TEMPLATE_COMMAND_BUFFERS;
 *   - tests/abi_compat: TEMPLATE_ABI_VERSION (the version declared),
 *     TEMPLATE_DESCRIPTOR_EXTRA_BYTES (a descriptor padded like a newer 1.x one) and
 *     TEMPLATE_EXPECT_HEADER_ABI_MINOR (#error unless the headers are that 1.x);
 *   - both: TEMPLATE_PLUGIN_NAME (must match the manifest's plugin.name).
 *
 * Files: this one (queue, device, driver, entry point), seeded_semaphore.c (the
 * semaphores), seeded_plugin.h (what both share), and seeded_commands.c where
 * TEMPLATE_COMMAND_BUFFERS is set. */
#define _POSIX_C_SOURCE 200809L

#include "seeded_plugin.h"

/* ---- Queue ------------------------------------------------------------------------- */

/* One queue_execute, allocated in one block with its arrays. Holds a reference to the
 * device and to every semaphore it names until it completes. */
struct template_submission_t {
  template_device_t* device;
  uint64_t sequence;
  template_submission_t* next_ready;
  template_submission_t* previous_in_flight;
  template_submission_t* next_in_flight;
  _Atomic uint64_t state;         /* SUBMISSION_* bits and the unresolved waits. */
  _Atomic(halo_status_t) failure; /* The first failed wait's status (owned). */
  size_t wait_count;
  halo_semaphore_t** wait_semaphores;
  halo_timepoint_t* wait_timepoints;
  size_t signal_count;
  halo_semaphore_t** signal_semaphores;
  uint64_t* signal_values;
  size_t command_buffer_count; /* Always 0 without TEMPLATE_COMMAND_BUFFERS. */
  halo_command_buffer_t** command_buffers;
};

/* Appends |submission| to the worker's ready list. The worker is woken under the lock:
 * once it is released, the worker may complete the submission and free the device. */
static void queue_enqueue_ready(template_submission_t* submission) {
  template_device_t* device = submission->device;
  pthread_mutex_lock(&device->mutex);
  submission->next_ready = NULL;
  if (device->ready_tail != NULL) {
    device->ready_tail->next_ready = submission;
  } else {
    device->ready_head = submission;
  }
  device->ready_tail = submission;
  pthread_cond_signal(&device->work_ready);
  pthread_mutex_unlock(&device->mutex);
}

/* A submission's state word: flags, and the number of unresolved waits above them. */
enum {
  SUBMISSION_REGISTERING = 1, /* queue_execute is still registering the waits. */
  SUBMISSION_FAILED = 2,      /* A wait failed: the others are not awaited. */
  SUBMISSION_HANDED_OVER = 4, /* Given to the worker, which now owns it. */
  SUBMISSION_ONE_WAIT = 8
};

/* Resolves |resolved| waits and sets or clears flags in one atomic step, which also
 * hands |submission| to the worker when it makes it ready: every wait reached, or one
 * failed (nothing hangs on the others). Never while queue_execute still registers
 * waits, and exactly once. One step matters: once the submission is handed over, the
 * worker may free it, so neither queue_execute nor a callback may look at it again. */
static void submission_update(template_submission_t* submission, uint64_t resolved,
                              uint64_t set, uint64_t clear) {
  uint64_t old = atomic_load(&submission->state), updated;
  do {
    updated = ((old - resolved * SUBMISSION_ONE_WAIT) | set) & ~clear;
#if defined(TEMPLATE_BREAK_STARTS_BEFORE_LAST_WAIT)
    /* TEST HOOK: off by one, ready while one wait is still unresolved. */
    const bool ready =
        updated < 2 * SUBMISSION_ONE_WAIT || (updated & SUBMISSION_FAILED) != 0;
#else
    const bool ready = updated < SUBMISSION_ONE_WAIT || (updated & SUBMISSION_FAILED) != 0;
#endif
    if (ready && (updated & SUBMISSION_REGISTERING) == 0) updated |= SUBMISSION_HANDED_OVER;
  } while (!atomic_compare_exchange_weak(&submission->state, &old, updated));
  if ((old & SUBMISSION_HANDED_OVER) == 0 && (updated & SUBMISSION_HANDED_OVER) != 0) {
    queue_enqueue_ready(submission);
  }
}

/* A wait resolved: reached (OK |status|) or failed. Runs on whichever thread resolved
 * it, so it only records the outcome: signalling from here could recurse through a
 * whole chain of submissions, each waiting on the one before. */
static void submission_timepoint_callback(void* user_data, halo_timepoint_t* timepoint,
                                          halo_status_t status) {
  template_submission_t* submission = (template_submission_t*)user_data;
  const bool failed = status != HALO_OK;
  (void)timepoint;
  if (failed) {
    halo_status_t expected = NULL;
    if (!atomic_compare_exchange_strong(&submission->failure, &expected, status)) {
      submission->device->host->status_free(status); /* The first failure wins. */
    }
  }
  submission_update(submission, 1, failed ? SUBMISSION_FAILED : 0, 0);
}

/* Logs a failed signal: the submission itself has nobody to report to. */
/* A queue signal the semaphore refuses fails the semaphore with the reason
 * (DESIGN.md §5), so that its waiters learn of it instead of hanging. A
 * semaphore that has already failed keeps its first failure. */
static void signal_from_queue(const halo_host_interface_t* host,
                              halo_semaphore_t* semaphore, uint64_t value,
                              size_t index) {
  const halo_semaphore_vtable_t* vtable = semaphore_vtable_of(semaphore);
  halo_status_t refusal = vtable->signal(semaphore, value);
  if (refusal == HALO_OK) return;
#if defined(TEMPLATE_BREAK_QUEUE_SIGNAL_DROPPED)
  /* TEST HOOK: a refused queue signal vanishes, leaving its waiters hanging. */
  host->status_free(refusal);
  (void)index;
  return;
#endif
  uint64_t payload = 0;
  halo_status_t state = vtable->query(semaphore, &payload);
  if (state != HALO_OK) {
    host->status_free(state);
    host->status_free(refusal);
    return;
  }
  halo_status_code_t code = HALO_STATUS_INVALID_ARGUMENT;
  char message[512];
  if (payload >= value) {
    snprintf(message, sizeof(message),
             "queue signal %zu: value %llu is not above the semaphore's "
             "payload %llu (another signal passed it first)",
             index, (unsigned long long)value, (unsigned long long)payload);
  } else {
    code = host->status_code(refusal);
    snprintf(message, sizeof(message), "queue signal %zu (value %llu): %s",
             index, (unsigned long long)value, host->status_message(refusal));
  }
  host->status_free(refusal);
  vtable->fail(semaphore, host->status_create(code, message));
}

#if defined(TEMPLATE_COMMAND_BUFFERS)
/* Runs |command_buffer|'s commands from |first| up to (not including) |end|, none of
 * them a barrier, on the worker: one after another in recording order, each complete
 * before the next starts, so that they take effect as if run serially. */
static void run_commands(halo_command_buffer_t* command_buffer, size_t first, size_t end) {
#if defined(TEMPLATE_BREAK_COMMANDS_REORDERED)
  /* TEST HOOK: the commands between two barriers run last to first, as if a queue
   * ran them unordered, so a later command's data is overwritten by an earlier one's
   * and a read sees memory before (or after) the write it follows (precedes). */
  for (size_t i = end; i-- > first;) seeded_command_run(command_buffer, i);
#else
  for (size_t i = first; i < end; ++i) seeded_command_run(command_buffer, i);
#endif
}

/* Runs each command buffer of |submission|, in order, barrier by barrier. */
static void run_command_buffers(template_submission_t* submission) {
  for (size_t c = 0; c < submission->command_buffer_count; ++c) {
    halo_command_buffer_t* command_buffer = submission->command_buffers[c];
    const size_t count = seeded_command_count(command_buffer);
    size_t first = 0;
    for (size_t i = 0; i <= count; ++i) {
      if (i < count && !seeded_command_is_barrier(command_buffer, i)) continue;
      run_commands(command_buffer, first, i);
      first = i + 1;
    }
  }
}
#endif

/* Drops a reference to |object| unless it is the last (a count of one is stable: nobody
 * else holds it); returns whether it did. */
static bool release_unless_last(halo_object_t* object) {
#if defined(TEMPLATE_BREAK_DEVICE_HELD_AFTER_IDLE)
  /* TEST HOOK: the worker keeps its submissions' device references and drops them 8 at
   * a time, after wait_idle has returned, as a queue retiring in batches would. */
  template_device_t* device = (template_device_t*)object;
  if (++device->held_device_references < 8) return true;
  device->held_device_references = 0;
  for (int i = 0; i < 7; ++i) __atomic_fetch_sub(&object->ref_count, 1, __ATOMIC_RELEASE);
  return false;
#else
  uint32_t seen = __atomic_load_n(&object->ref_count, __ATOMIC_RELAXED);
  while (seen > 1) {
    if (__atomic_compare_exchange_n(&object->ref_count, &seen, seen - 1, true,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
      return true;
    }
  }
  return false;
#endif
}

/* On the worker: signals (or fails) the signal semaphores, drops every reference and
 * frees |submission|. May drop the device's last reference, destroying the device on
 * this very thread (see device_destroy). */
static void submission_complete(template_submission_t* submission) {
  template_device_t* device = submission->device;
  const halo_host_interface_t* host = device->host;
  /* After a failure other waits may still be registered, or their callbacks running:
   * cancel each (race-free) before the memory goes. */
  for (size_t i = 0; i < submission->wait_count; ++i) {
    halo_semaphore_t* semaphore = submission->wait_semaphores[i];
    halo_timepoint_t* timepoint = &submission->wait_timepoints[i];
    if (timepoint->callback == NULL) continue; /* Never registered. */
    semaphore_vtable_of(semaphore)->cancel_timepoint(semaphore, timepoint);
  }
  halo_status_t failure = atomic_load(&submission->failure);
#if defined(TEMPLATE_COMMAND_BUFFERS)
  if (failure == HALO_OK) run_command_buffers(submission);
#endif
  for (size_t i = 0; i < submission->signal_count; ++i) {
    halo_semaphore_t* semaphore = submission->signal_semaphores[i];
    if (failure != HALO_OK) {
      semaphore_vtable_of(semaphore)->fail(semaphore, host->status_clone(failure));
      continue;
    }
    signal_from_queue(host, semaphore, submission->signal_values[i], i);
  }
  host->status_free(failure);
  for (size_t i = 0; i < submission->wait_count; ++i) {
    host->object_release((halo_object_t*)submission->wait_semaphores[i]);
  }
#if !defined(TEMPLATE_BREAK_SIGNALS_NOT_RETAINED)
  for (size_t i = 0; i < submission->signal_count; ++i) {
    host->object_release((halo_object_t*)submission->signal_semaphores[i]);
  }
#endif
  for (size_t i = 0; i < submission->command_buffer_count; ++i) {
    host->object_release((halo_object_t*)submission->command_buffers[i]);
  }
  /* The device reference too, before wait_idle may return (halo/device.h), unless it
   * is the last: then nobody can wait_idle, and dropping it destroys the device. */
  const bool device_released = release_unless_last(&device->object);
  /* No longer in flight. Only the oldest one's completion can end a wait_idle. */
  pthread_mutex_lock(&device->mutex);
  template_submission_t* previous = submission->previous_in_flight;
  template_submission_t* next = submission->next_in_flight;
  if (previous != NULL) {
    previous->next_in_flight = next;
  } else {
    device->in_flight_head = next;
    pthread_cond_broadcast(&device->progress);
  }
  if (next != NULL) {
    next->previous_in_flight = previous;
  } else {
    device->in_flight_tail = previous;
  }
  pthread_mutex_unlock(&device->mutex);
  host_free(host, submission);
  if (!device_released) host->object_release(&device->object); /* The last. */
}

/* Set when device_destroy ran on the worker thread itself. */
static _Thread_local bool t_worker_device_destroyed = false;

static void* queue_worker_main(void* argument) {
  template_device_t* device = (template_device_t*)argument;
  pin_library_to_this_thread();
  pthread_mutex_lock(&device->mutex);
  for (;;) {
    template_submission_t* submission = device->ready_head;
    if (submission != NULL) {
      device->ready_head = submission->next_ready;
      if (device->ready_head == NULL) device->ready_tail = NULL;
      pthread_mutex_unlock(&device->mutex);
      submission_complete(submission);
      if (t_worker_device_destroyed) return NULL; /* |device| is gone. */
      pthread_mutex_lock(&device->mutex);
    } else if (device->stopping) {
      break;
    } else {
      pthread_cond_wait(&device->work_ready, &device->mutex);
    }
  }
  pthread_mutex_unlock(&device->mutex);
  return NULL;
}

/* Allocates |info|'s submission in one block (every array member is 8 bytes, so all
 * stay aligned), retaining the device and every semaphore. */
static template_submission_t* submission_create(template_device_t* device,
                                                const halo_queue_execute_info_t* info) {
  const halo_host_interface_t* host = device->host;
  const size_t waits = info->wait_count, signals = info->signal_count;
  const size_t commands = info->command_buffer_count;
  const size_t size = sizeof(template_submission_t) + waits * sizeof(halo_timepoint_t) +
                      (waits + signals) * sizeof(halo_semaphore_t*) +
                      signals * sizeof(uint64_t) + commands * sizeof(halo_command_buffer_t*);
  template_submission_t* submission = host_allocate(host, size);
  if (submission == NULL) return NULL;
  memset(submission, 0, size);
  submission->device = device;
  submission->wait_count = waits;
  submission->wait_timepoints = (halo_timepoint_t*)(submission + 1);
  submission->wait_semaphores = (halo_semaphore_t**)(submission->wait_timepoints + waits);
  submission->signal_count = signals;
  submission->signal_semaphores = submission->wait_semaphores + waits;
  submission->signal_values = (uint64_t*)(submission->signal_semaphores + signals);
  submission->command_buffer_count = commands;
  submission->command_buffers = (halo_command_buffer_t**)(submission->signal_values + signals);
  atomic_init(&submission->state, waits * SUBMISSION_ONE_WAIT | SUBMISSION_REGISTERING);
  atomic_init(&submission->failure, NULL);
  host->object_retain(&device->object);
  for (size_t i = 0; i < waits; ++i) {
    submission->wait_semaphores[i] = info->wait_semaphores[i];
    host->object_retain((halo_object_t*)info->wait_semaphores[i]);
  }
  for (size_t i = 0; i < signals; ++i) {
    submission->signal_semaphores[i] = info->signal_semaphores[i];
    submission->signal_values[i] = info->signal_values[i];
#if !defined(TEMPLATE_BREAK_SIGNALS_NOT_RETAINED)
    /* (TEST HOOK TEMPLATE_BREAK_SIGNALS_NOT_RETAINED leaves this out, and the
     * matching release: the caller is trusted to keep signal semaphores.) */
    host->object_retain((halo_object_t*)info->signal_semaphores[i]);
#endif
  }
  for (size_t i = 0; i < commands; ++i) {
    submission->command_buffers[i] = info->command_buffers[i];
    host->object_retain((halo_object_t*)info->command_buffers[i]);
  }
  return submission;
}

/* Never blocks: retains everything, registers one timepoint per wait and returns. The
 * submission goes to the worker when its last wait is reached (or one fails). */
static halo_status_t device_queue_execute(halo_device_t* base,
                                          const halo_queue_execute_info_t* info) {
  template_device_t* device = (template_device_t*)base;
  const halo_host_interface_t* host = device->host;
#if !defined(TEMPLATE_COMMAND_BUFFERS)
  if (info->command_buffer_count != 0) { /* VENDOR: run command buffers here. */
    return host->status_format(HALO_STATUS_UNIMPLEMENTED,
                               TEMPLATE_PLUGIN_NAME ": command buffers are not supported "
                               "(%zu given); only barriers are", info->command_buffer_count);
  }
#endif
  if ((info->affinity & 1u) == 0) {
    return host->status_format(HALO_STATUS_INVALID_ARGUMENT,
                               TEMPLATE_PLUGIN_NAME ": queue affinity 0x%llx selects no "
                               "queue (there is only queue 0)",
                               (unsigned long long)info->affinity);
  }
#if defined(TEMPLATE_COMMAND_BUFFERS)
  halo_status_t claim = seeded_command_buffers_claim(host, base, info);
  if (claim != HALO_OK) return claim;
#endif
  template_submission_t* submission = submission_create(device, info);
  if (submission == NULL) {
#if defined(TEMPLATE_COMMAND_BUFFERS)
    seeded_command_buffers_unclaim(info);
#endif
    return out_of_memory(host);
  }
  /* In flight from now on: wait_idle waits for it. */
  pthread_mutex_lock(&device->mutex);
  submission->sequence = device->next_sequence++;
  submission->previous_in_flight = device->in_flight_tail;
  if (device->in_flight_tail != NULL) {
    device->in_flight_tail->next_in_flight = submission;
  } else {
    device->in_flight_head = submission;
  }
  device->in_flight_tail = submission;
  pthread_mutex_unlock(&device->mutex);
  /* Each wait goes through its semaphore's own vtable: it may be any plugin's. A wait
   * that cannot even be registered fails the submission like a failed semaphore. */
  for (size_t i = 0; i < submission->wait_count; ++i) {
    halo_semaphore_t* semaphore = submission->wait_semaphores[i];
    halo_timepoint_t* timepoint = &submission->wait_timepoints[i];
    timepoint->struct_size = sizeof(*timepoint);
    timepoint->value = info->wait_values[i];
    timepoint->callback = submission_timepoint_callback;
    timepoint->user_data = submission;
    halo_status_t status = semaphore_vtable_of(semaphore)->acquire_timepoint(semaphore,
                                                                            timepoint);
    if (status != HALO_OK) {
      timepoint->callback = NULL; /* Not registered: nothing to cancel later. */
      submission_timepoint_callback(submission, timepoint, status);
    }
  }
  submission_update(submission, 0, 0, SUBMISSION_REGISTERING); /* Last touch. */
  return HALO_OK;
}

/* Submissions start as soon as they are ready; nothing is batched. */
static halo_status_t device_queue_flush(halo_device_t* base, halo_queue_affinity_t affinity) {
  (void)base;
  (void)affinity;
  return HALO_OK;
}

/* Blocks until every submission made before the call has completed. */
static halo_status_t device_wait_idle(halo_device_t* base, halo_time_ns_t deadline) {
  template_device_t* device = (template_device_t*)base;
  deadline = effective_deadline(deadline);
  halo_status_t result = HALO_OK;
  bool timed_out = false;
  pthread_mutex_lock(&device->mutex);
  const uint64_t target = device->next_sequence;
  while (device->in_flight_head != NULL && device->in_flight_head->sequence < target) {
    if (timed_out) {
      result = deadline_exceeded(device->host);
      break;
    }
    timed_out = !cond_wait_until(device->host, &device->progress, &device->mutex, deadline);
  }
  pthread_mutex_unlock(&device->mutex);
  return result;
}

/* ---- Device ------------------------------------------------------------------------ */

static void fill_device_info(halo_device_info_t* info) {
  /* VENDOR: your device's name, PCI ids and a stable UUID. */
  static const uint8_t kUuid[16] = "halo-template-01";
  memset(info, 0, sizeof(*info));
  info->struct_size = sizeof(*info);
  /* Its commands (seeded_commands.c) run on the host's threads. */
  info->type = HALO_DEVICE_TYPE_CPU;
  info->device_id = TEMPLATE_DEVICE_ID;
  copy_string(info->name, sizeof(info->name), "template device");
  copy_string(info->vendor, sizeof(info->vendor), "halo template");
  copy_string(info->driver_version, sizeof(info->driver_version), TEMPLATE_PLUGIN_VERSION);
  memcpy(info->uuid, kUuid, sizeof(kUuid));
#if HALO_ABI_VERSION_MINOR >= 2 && !defined(TEMPLATE_BREAK_DEVICE_INFO)
  /* ABI 1.2 (TEST HOOK TEMPLATE_BREAK_DEVICE_INFO leaves both 0): the host, one
   * worker thread. */
  copy_string(info->native_api, sizeof(info->native_api), "host");
  info->compute_units = 1;
#endif
}

/* Runs when the last reference goes. Every submission holds one, so none is left; but
 * the worker itself may have dropped the last one (submission_complete): then it is
 * detached rather than joined, and told to leave without touching the device. */
static void device_destroy(halo_object_t* object) {
  template_device_t* device = (template_device_t*)object;
  const halo_host_interface_t* host = device->host;
  halo_driver_t* driver = device->driver;
  pthread_mutex_lock(&device->mutex);
  device->stopping = true;
  pthread_cond_signal(&device->work_ready);
  pthread_mutex_unlock(&device->mutex);
  if (pthread_equal(pthread_self(), device->worker)) {
    pthread_detach(device->worker);
    t_worker_device_destroyed = true;
  } else {
    pthread_join(device->worker, NULL);
  }
  pthread_cond_destroy(&device->progress);
  pthread_cond_destroy(&device->work_ready);
  pthread_cond_destroy(&device->changed);
  pthread_mutex_destroy(&device->mutex);
  host_free(host, device);
  host->object_release((halo_object_t*)driver);
}

static halo_status_t device_query_info(halo_device_t* base, halo_device_info_t* out_info) {
  (void)base;
#if defined(TEMPLATE_BREAK_CRASH)
  uint32_t* volatile nowhere = NULL; /* TEST HOOK: a NULL write; must be a CRASH. */
  *nowhere = 0;
#endif
  halo_device_info_t info;
  fill_device_info(&info);
#if defined(TEMPLATE_BREAK_QUERY_OVERRUNS) /* TEST HOOK: ignores the caller's size. */
  copy_out(out_info, sizeof(info), &info, sizeof(info));
#else
  copy_out(out_info, out_info->struct_size, &info, sizeof(info));
#endif
  return HALO_OK;
}

static halo_status_t device_query_capabilities(halo_device_t* base,
                                               halo_device_capabilities_t* out_caps) {
  (void)base;
  halo_device_capabilities_t caps;
  memset(&caps, 0, sizeof(caps));
  caps.struct_size = sizeof(caps);
  /* VENDOR: claim only what you implement. The CTS tests every claim and skips, with
   * the reason, the cases that need what you do not claim. */
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
#if defined(TEMPLATE_COMMAND_BUFFERS)
  caps.features |= HALO_DEVICE_FEATURE_BUFFERS | HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                   HALO_DEVICE_FEATURE_DISPATCH;
  caps.max_buffer_size = SEEDED_MAX_BUFFER_SIZE;
  caps.min_buffer_alignment = SEEDED_MIN_BUFFER_ALIGNMENT;
  caps.memory_types = SEEDED_MEMORY_TYPES;
  copy_string(caps.executable_formats, sizeof(caps.executable_formats),
              SEEDED_EXECUTABLE_FORMATS);
  /* Buffers are host memory; the plugin counts at most its largest buffer. */
  caps.device_memory_size = SEEDED_MAX_BUFFER_SIZE;
  for (int d = 0; d < 3; ++d) {
    caps.max_workgroup_size[d] = UINT32_MAX; /* A call decides what it does. */
    caps.max_workgroup_count[d] = SEEDED_MAX_WORKGROUP_COUNT;
  }
  caps.max_workgroup_invocations = UINT32_MAX;
  caps.max_workgroup_count_total = SEEDED_MAX_WORKGROUP_COUNT_TOTAL;
  caps.max_binding_count = SEEDED_MAX_PARAMETERS;
  caps.max_constant_size = SEEDED_MAX_PARAMETERS * 8u;
#if HALO_ABI_VERSION_MINOR >= 3
  caps.buffer_import_types = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  caps.host_allocation_alignment = SEEDED_HOST_ALLOCATION_ALIGNMENT;
#endif
#endif
#if defined(TEMPLATE_BREAK_DEVICE_LIMITS)
  /* TEST HOOK: memory and dispatch limits without buffers or dispatch. */
  caps.device_memory_size = 1;
  caps.max_workgroup_size[0] = 8;
  caps.max_workgroup_invocations = 4;
  caps.max_workgroup_count_total = 1;
  caps.max_binding_count = 2;
#endif
#if defined(TEMPLATE_BREAK_QUERY_OVERRUNS) /* TEST HOOK: ignores the caller's size. */
  copy_out(out_caps, sizeof(caps), &caps, sizeof(caps));
#else
  copy_out(out_caps, out_caps->struct_size, &caps, sizeof(caps));
#endif
  return HALO_OK;
}

static halo_status_t device_create_semaphore(halo_device_t* base, uint64_t initial_value,
                                             halo_semaphore_flags_t flags,
                                             halo_semaphore_t** out_semaphore) {
  (void)flags;
  return seeded_semaphore_create((template_device_t*)base, initial_value, out_semaphore);
}

/* This plugin's semaphores are host objects every one of its devices uses fully; any
 * other plugin's can be waited on and signalled from the host through its vtable
 * (timepoints), which is all this queue needs. */
static halo_semaphore_compatibility_t device_semaphore_compatibility(
    halo_device_t* base, halo_semaphore_t* semaphore) {
  (void)base;
  if (((halo_object_t*)semaphore)->vtable == &seeded_semaphore_vtable.object) {
    return HALO_SEMAPHORE_COMPATIBILITY_ALL;
  }
  return HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT | HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
}

/* ALL or ANY over semaphores of this device (libhalo itself routes lists that mix
 * devices through timepoints). Simple: re-check every value whenever any semaphore of
 * the device changes. VENDOR: use the native multi-semaphore wait. */
static halo_status_t device_wait_semaphores(halo_device_t* base, halo_wait_mode_t mode,
                                            size_t count, halo_semaphore_t* const* semaphores,
                                            const uint64_t* values, halo_time_ns_t deadline) {
  template_device_t* device = (template_device_t*)base;
#if defined(TEMPLATE_BREAK_POLL_ALLOCATES)
  if (deadline == HALO_DEADLINE_INFINITE_PAST) scratch_allocation(device->host);
#endif
  deadline = effective_deadline(deadline);
#if defined(TEMPLATE_BREAK_ANY_AS_ALL)
  mode = HALO_WAIT_MODE_ALL; /* TEST HOOK: ANY waits for every semaphore. */
#endif
  bool timed_out = false;
  for (;;) {
    pthread_mutex_lock(&device->mutex);
    const uint64_t generation = device->generation;
    pthread_mutex_unlock(&device->mutex);
    size_t reached = 0;
    for (size_t i = 0; i < count; ++i) {
      template_semaphore_t* semaphore = (template_semaphore_t*)semaphores[i];
      const uint64_t value = atomic_load_explicit(&semaphore->value, memory_order_acquire);
      if (value >= HALO_SEMAPHORE_FAILURE_VALUE) {
        return device->host->status_clone(semaphore->failure);
      }
      reached += value >= values[i];
#if defined(TEMPLATE_BREAK_ANY_REACHED_HIDES_FAILURE)
      /* TEST HOOK: ANY stops at the first reached pair, so a failed semaphore
       * later in the list goes unseen. */
      if (mode == HALO_WAIT_MODE_ANY && reached > 0) return HALO_OK;
#endif
    }
    if (reached == count || (mode == HALO_WAIT_MODE_ANY && reached > 0)) return HALO_OK;
    if (timed_out) return deadline_exceeded(device->host);
    pthread_mutex_lock(&device->mutex);
    while (!timed_out && device->generation == generation) {
      timed_out = !cond_wait_until(device->host, &device->changed, &device->mutex, deadline);
    }
    pthread_mutex_unlock(&device->mutex);
  }
}

#if defined(TEMPLATE_COMMAND_BUFFERS)
static halo_status_t device_allocate_buffer(halo_device_t* base,
                                            const halo_buffer_params_t* params,
                                            halo_buffer_t** out_buffer) {
  return seeded_buffer_allocate(((template_device_t*)base)->host, base, params, out_buffer);
}

static halo_status_t device_create_command_buffer(halo_device_t* base,
                                                  halo_command_buffer_mode_t mode,
                                                  halo_command_buffer_t** out_command_buffer) {
  return seeded_command_buffer_create(((template_device_t*)base)->host, base, mode,
                                      out_command_buffer);
}

static halo_status_t device_create_executable(halo_device_t* base,
                                              const halo_executable_params_t* params,
                                              halo_executable_t** out_executable) {
  return seeded_executable_create(((template_device_t*)base)->host, base, params,
                                  out_executable);
}

#if HALO_ABI_VERSION_MINOR >= 3
static halo_status_t device_import_buffer(halo_device_t* base,
                                          const halo_buffer_params_t* params,
                                          const halo_external_handle_t* handle,
                                          halo_buffer_t** out_buffer) {
  return seeded_buffer_import(((template_device_t*)base)->host, base, params, handle,
                              out_buffer);
}
#endif
#else
/* Without TEMPLATE_COMMAND_BUFFERS these stay NULL: libhalo then answers UNIMPLEMENTED.
 * VENDOR: fill them in, and claim the matching feature bits. */
#define device_allocate_buffer NULL
#define device_create_command_buffer NULL
#define device_create_executable NULL
#define device_import_buffer NULL
#endif

static const halo_device_vtable_t kDeviceVtable = {
    .object = {.struct_size = sizeof(halo_device_vtable_t),
               .type = HALO_OBJECT_TYPE_DEVICE,
               .destroy = device_destroy},
    .query_info = device_query_info,
    .query_capabilities = device_query_capabilities,
    .create_semaphore = device_create_semaphore,
    .semaphore_compatibility = device_semaphore_compatibility,
    .queue_execute = device_queue_execute,
    .queue_flush = device_queue_flush,
    .wait_semaphores = device_wait_semaphores,
    .wait_idle = device_wait_idle,
    .allocate_buffer = device_allocate_buffer,
    .create_command_buffer = device_create_command_buffer,
    .create_executable = device_create_executable,
#if HALO_ABI_VERSION_MINOR >= 3
    .import_buffer = device_import_buffer,
#endif
};

static halo_status_t device_create(template_driver_t* driver, halo_device_t** out_device) {
  const halo_host_interface_t* host = driver->host;
  template_device_t* device = host_allocate(host, sizeof(*device));
  if (device == NULL) return out_of_memory(host);
  memset(device, 0, sizeof(*device));
  object_init(&device->object, &kDeviceVtable);
  device->host = host;
  pthread_mutex_init(&device->mutex, NULL);
  cond_init_monotonic(&device->changed);
  cond_init_monotonic(&device->progress);
  pthread_cond_init(&device->work_ready, NULL);
  const int error = pthread_create(&device->worker, NULL, queue_worker_main, device);
  if (error != 0) {
    pthread_cond_destroy(&device->work_ready);
    pthread_cond_destroy(&device->progress);
    pthread_cond_destroy(&device->changed);
    pthread_mutex_destroy(&device->mutex);
    host_free(host, device);
    return host->status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                               TEMPLATE_PLUGIN_NAME ": cannot start the queue thread: %s",
                               strerror(error));
  }
  device->driver = (halo_driver_t*)driver;
  host->object_retain(&driver->object);
  *out_device = (halo_device_t*)device;
  return HALO_OK;
}

/* ---- Driver ------------------------------------------------------------------------ */

static void driver_destroy(halo_object_t* object) {
  template_driver_t* driver = (template_driver_t*)object;
  host_free(driver->host, driver);
}

static halo_status_t driver_query_info(halo_driver_t* base, halo_driver_info_t* out_info) {
  (void)base;
  halo_driver_info_t info;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  copy_string(info.name, sizeof(info.name), TEMPLATE_PLUGIN_NAME);
  copy_string(info.version, sizeof(info.version), TEMPLATE_PLUGIN_VERSION);
  copy_string(info.description, sizeof(info.description),
              "halo template plugin: host timeline semaphores, a barrier-only queue");
  copy_out(out_info, out_info->struct_size, &info, sizeof(info));
  return HALO_OK;
}

/* Writes up to |capacity| infos, |info_stride| bytes apart, each filled up to
 * min(info_stride, sizeof) bytes. VENDOR: enumerate your hardware here. */
static halo_status_t driver_enumerate_devices(halo_driver_t* base, size_t capacity,
                                              size_t info_stride,
                                              halo_device_info_t* out_infos,
                                              size_t* out_count) {
  (void)base;
  if (capacity > 0 && out_infos != NULL) {
    halo_device_info_t info;
    fill_device_info(&info);
    const uint32_t stride = info_stride > UINT32_MAX ? UINT32_MAX : (uint32_t)info_stride;
    copy_out(out_infos, stride, &info, sizeof(info));
  }
  *out_count = 1;
  return HALO_OK;
}

static halo_status_t driver_create_device(halo_driver_t* base, halo_device_id_t device_id,
                                          const halo_device_params_t* params,
                                          halo_device_t** out_device) {
  template_driver_t* driver = (template_driver_t*)base;
  (void)params;
  *out_device = NULL;
  if (device_id != TEMPLATE_DEVICE_ID) {
    return driver->host->status_format(HALO_STATUS_NOT_FOUND,
                                       TEMPLATE_PLUGIN_NAME ": no device has id %llu",
                                       (unsigned long long)device_id);
  }
  return device_create(driver, out_device);
}

static const halo_driver_vtable_t kDriverVtable = {
    .object = {.struct_size = sizeof(halo_driver_vtable_t),
               .type = HALO_OBJECT_TYPE_DRIVER,
               .destroy = driver_destroy},
    .query_info = driver_query_info,
    .enumerate_devices = driver_enumerate_devices,
    .create_device = driver_create_device,
};

/* The plugin's initialisation. VENDOR: open your native API here; when it is missing,
 * return UNAVAILABLE with the reason, and the loader skips this plugin alone. */
static halo_status_t create_driver(const halo_host_interface_t* host,
                                   halo_driver_t** out_driver) {
  *out_driver = NULL;
  template_driver_t* driver = host_allocate(host, sizeof(*driver));
  if (driver == NULL) return out_of_memory(host);
  object_init(&driver->object, &kDriverVtable);
  driver->host = host;
  *out_driver = (halo_driver_t*)driver;
  return HALO_OK;
}

/* ---- Entry point ------------------------------------------------------------------- */

#if defined(TEMPLATE_DESCRIPTOR_EXTRA_BYTES)
/* TEST HOOK: a descriptor with members this host does not know, as one built against a
 * newer 1.x header has. The loader must read only what it knows and load the plugin. */
static const struct {
  halo_plugin_descriptor_t known;
  unsigned char future[TEMPLATE_DESCRIPTOR_EXTRA_BYTES];
} kPaddedDescriptor = {.known = {.struct_size = sizeof(kPaddedDescriptor),
                                 .abi_version = TEMPLATE_ABI_VERSION,
                                 .name = TEMPLATE_PLUGIN_NAME,
                                 .version = TEMPLATE_PLUGIN_VERSION,
                                 .create_driver = create_driver}};
#define TEMPLATE_DESCRIPTOR (&kPaddedDescriptor.known)
#else
static const halo_plugin_descriptor_t kDescriptor = {
    .struct_size = sizeof(halo_plugin_descriptor_t),
    .abi_version = TEMPLATE_ABI_VERSION,
    .name = TEMPLATE_PLUGIN_NAME,
    .version = TEMPLATE_PLUGIN_VERSION,
    .create_driver = create_driver,
};
#define TEMPLATE_DESCRIPTOR (&kDescriptor)
#endif

/* The one exported symbol. Accepts a host whose ABI range includes this plugin's major
 * version: within a major, struct sizes keep older and newer minors compatible
 * (DESIGN.md §2.3). Otherwise it logs why and returns NULL; the loader records the
 * reason and skips this plugin. */
HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params) {
  if (params == NULL || params->host == NULL ||
      params->struct_size < offsetof(halo_plugin_query_params_t, host) + sizeof(void*) ||
      params->host->struct_size < offsetof(halo_host_interface_t, log) + sizeof(void*)) {
    return NULL; /* Not a host this plugin can even talk to. */
  }
  const halo_host_interface_t* host = params->host;
  const uint32_t major = HALO_VERSION_MAJOR(TEMPLATE_ABI_VERSION);
  const uint32_t min = params->abi_version_min, max = params->abi_version_max;
  /* Every host member this file uses is ABI 1.0; status_from_code is the last. */
  const size_t host_needed = offsetof(halo_host_interface_t, status_from_code) +
                             sizeof(host->status_from_code);
  char reason[256] = "";
  if (major < HALO_VERSION_MAJOR(min) || major > HALO_VERSION_MAJOR(max)) {
    snprintf(reason, sizeof(reason),
             TEMPLATE_PLUGIN_NAME " is built for ABI %u.%u; the host accepts ABI %u.%u to "
             "%u.%u, another major version", (unsigned)major,
             (unsigned)HALO_VERSION_MINOR(TEMPLATE_ABI_VERSION), (unsigned)HALO_VERSION_MAJOR(min),
             (unsigned)HALO_VERSION_MINOR(min), (unsigned)HALO_VERSION_MAJOR(max),
             (unsigned)HALO_VERSION_MINOR(max));
  } else if (host->struct_size < host_needed) {
    snprintf(reason, sizeof(reason),
             TEMPLATE_PLUGIN_NAME " needs the ABI 1.0 host interface (%zu bytes); the "
             "host's has %u", host_needed, (unsigned)host->struct_size);
  }
  if (reason[0] != '\0') {
    host->log(host->self, HALO_LOG_LEVEL_ERROR, reason);
    return NULL;
  }
  return TEMPLATE_DESCRIPTOR;
}
