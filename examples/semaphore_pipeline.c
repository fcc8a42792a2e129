/* halo-demo: a three-stage pipeline ordered only by timeline semaphores.
 *
 * It enumerates the devices halo finds, takes the first one with queues, and
 * submits the stages *before* anything they wait on is signalled (wait before
 * signal). The host then releases the first stage and waits for the last. This
 * is the shape of every multi-stage program on halo: submit the graph, signal
 * its inputs, wait for its outputs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "halo/halo.h"

/* Prints |status| with |what| and frees it; returns true when it was an error. */
static bool report(halo_status_t status, const char* what) {
  if (status == NULL) return false;
  fprintf(stderr, "halo-demo: %s failed: %s: %s\n", what,
          halo_status_code_name(halo_status_code(status)),
          halo_status_message(status));
  halo_status_free(status);
  return true;
}

/* Creates the first device that offers queues; NULL when there is none. */
static halo_device_t* open_queue_device(halo_registry_t* registry) {
  size_t count = 0;
  if (report(halo_registry_device_count(registry, &count), "device count")) {
    return NULL;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = NULL;
    if (report(halo_registry_create_device(registry, i, NULL, &device),
               "create device")) {
      continue;
    }
    halo_device_capabilities_t caps = {.struct_size = sizeof(caps)};
    halo_device_info_t info = {.struct_size = sizeof(info)};
    if (!report(halo_device_query_capabilities(device, &caps), "capabilities") &&
        !report(halo_device_query_info(device, &info), "info") &&
        (caps.features & HALO_DEVICE_FEATURE_QUEUES) != 0) {
      printf("halo-demo: using device '%s'\n", info.name);
      return device;
    }
    halo_device_release(device);
  }
  return NULL;
}

/* Submits a barrier that waits for (wait, wait_value) and then signals
 * (signal, signal_value). */
static bool submit_stage(halo_device_t* device, halo_semaphore_t* wait,
                         uint64_t wait_value, halo_semaphore_t* signal,
                         uint64_t signal_value) {
  halo_queue_execute_info_t info = {
      .struct_size = sizeof(info),
      .affinity = HALO_QUEUE_AFFINITY_ANY,
      .wait_count = 1,
      .wait_semaphores = &wait,
      .wait_values = &wait_value,
      .signal_count = 1,
      .signal_semaphores = &signal,
      .signal_values = &signal_value,
  };
  return !report(halo_device_queue_execute(device, &info), "queue execute");
}

static int run(halo_device_t* device) {
  enum { kStages = 3 };
  halo_semaphore_t* stages[kStages + 1] = {NULL};
  int result = EXIT_FAILURE;
  for (int i = 0; i <= kStages; ++i) {
    if (report(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE,
                                     &stages[i]),
               "semaphore create")) {
      goto done;
    }
  }
  /* Wait before signal: every stage is queued before its input exists. */
  for (int i = 0; i < kStages; ++i) {
    if (!submit_stage(device, stages[i], 1, stages[i + 1], 1)) goto done;
  }
  printf("halo-demo: %d stages queued; releasing the first from the host\n",
         kStages);
  if (report(halo_semaphore_signal(stages[0], 1), "signal")) goto done;
  if (report(halo_semaphore_wait(stages[kStages], 1,
                                 halo_deadline_after_ns(10LL * 1000000000)),
             "wait for the last stage")) {
    goto done;
  }
  uint64_t value = 0;
  if (report(halo_semaphore_query(stages[kStages], &value), "query")) goto done;
  printf("halo-demo: last stage reached value %" PRIu64 "\n", value);
  result = EXIT_SUCCESS;
done:
  for (int i = 0; i <= kStages; ++i) halo_semaphore_release(stages[i]);
  return result;
}

int main(void) {
  halo_registry_t* registry = NULL;
  if (report(halo_registry_create(NULL, &registry), "registry create")) {
    return EXIT_FAILURE;
  }
  halo_device_t* device = open_queue_device(registry);
  int result = EXIT_FAILURE;
  if (device == NULL) {
    fprintf(stderr, "halo-demo: no device with queues; run halo-info\n");
  } else {
    result = run(device);
    halo_device_release(device);
  }
  halo_registry_release(registry);
  if (result == EXIT_SUCCESS) printf("halo-demo: OK\n");
  return result;
}
