/* Devices: info, capabilities, semaphores and the queue (DESIGN.md §5).
 *
 * Info and capability structs are filled up to the smaller of the caller's
 * struct_size and the plugin's own; the caller sets struct_size first. */
#ifndef HALO_DEVICE_H_
#define HALO_DEVICE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/buffer.h"
#include "halo/command_buffer.h"
#include "halo/deadline.h"
#include "halo/executable.h"
#include "halo/object.h"
#include "halo/semaphore.h"
#include "halo/status.h"

typedef enum halo_device_type_e {
  HALO_DEVICE_TYPE_OTHER = 0,
  HALO_DEVICE_TYPE_GPU_DISCRETE = 1,
  HALO_DEVICE_TYPE_GPU_INTEGRATED = 2,
  HALO_DEVICE_TYPE_ACCELERATOR = 3,
  HALO_DEVICE_TYPE_CPU = 4,
  HALO_DEVICE_TYPE_GPU_VIRTUAL = 5
} halo_device_type_t;

/* Identifies a device within its driver; stable for the driver's lifetime. */
typedef uint64_t halo_device_id_t;

typedef struct halo_device_info_t {
  uint32_t struct_size;
  /* One of halo_device_type_t. */
  uint32_t type;
  halo_device_id_t device_id;
  char name[256];
  char vendor[128];
  char driver_version[64];
  /* Native identifiers (PCI vendor/device id where there is one). */
  uint32_t vendor_id;
  uint32_t native_device_id;
  uint8_t uuid[16];
  /* --- ABI 1.0 ends here. --- */
} halo_device_info_t;

/* Feature bits: what a device offers. The CTS skips cases whose needs are
 * missing and names the missing bit. */
typedef uint64_t halo_device_features_t;
#define HALO_DEVICE_FEATURE_SEMAPHORES ((halo_device_features_t)1u << 0)
#define HALO_DEVICE_FEATURE_QUEUES ((halo_device_features_t)1u << 1)
#define HALO_DEVICE_FEATURE_BUFFERS ((halo_device_features_t)1u << 2)
#define HALO_DEVICE_FEATURE_COMMAND_BUFFERS ((halo_device_features_t)1u << 3)
#define HALO_DEVICE_FEATURE_DISPATCH ((halo_device_features_t)1u << 4)
/* Waits on the device's own semaphores happen on the device, not the host. */
#define HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT \
  ((halo_device_features_t)1u << 5)

typedef struct halo_device_capabilities_t {
  uint32_t struct_size;
  uint32_t queue_count;
  halo_device_features_t features;
  /* Largest difference between a semaphore's payload and any pending wait or
   * signal value (Vulkan's maxTimelineSemaphoreValueDifference);
   * HALO_SEMAPHORE_MAX_VALUE where unlimited. */
  uint64_t max_semaphore_value_difference;
  uint64_t max_buffer_size;
  uint64_t min_buffer_alignment;
  /* Bitwise OR of the halo_memory_type_t bits the device offers. */
  halo_memory_type_t memory_types;
  uint32_t reserved0;
  /* Comma-separated executable formats, e.g. "spirv" or "cpu-so". */
  char executable_formats[128];
  /* --- ABI 1.0 ends here. --- */
} halo_device_capabilities_t;

/* A bitmask of queues; bit i is queue i. */
typedef uint64_t halo_queue_affinity_t;
#define HALO_QUEUE_AFFINITY_ANY (~(halo_queue_affinity_t)0)

/* One queue submission. Every array is borrowed for the call; the device
 * retains every object it names until the submission completes. */
typedef struct halo_queue_execute_info_t {
  uint32_t struct_size;
  uint32_t reserved0;
  halo_queue_affinity_t affinity;
  size_t wait_count;
  halo_semaphore_t* const* wait_semaphores;
  const uint64_t* wait_values;
  size_t signal_count;
  halo_semaphore_t* const* signal_semaphores;
  const uint64_t* signal_values;
  size_t command_buffer_count;
  halo_command_buffer_t* const* command_buffers;
  /* --- ABI 1.0 ends here. --- */
} halo_queue_execute_info_t;

typedef struct halo_device_vtable_t {
  halo_object_vtable_t object;
  halo_status_t (*query_info)(halo_device_t* device,
                              halo_device_info_t* out_info);
  halo_status_t (*query_capabilities)(halo_device_t* device,
                                      halo_device_capabilities_t* out_caps);
  halo_status_t (*create_semaphore)(halo_device_t* device,
                                    uint64_t initial_value,
                                    halo_semaphore_flags_t flags,
                                    halo_semaphore_t** out_semaphore);
  halo_semaphore_compatibility_t (*semaphore_compatibility)(
      halo_device_t* device, halo_semaphore_t* semaphore);
  /* Never blocks. libhalo has checked handles, types and value ranges. */
  halo_status_t (*queue_execute)(halo_device_t* device,
                                 const halo_queue_execute_info_t* info);
  halo_status_t (*queue_flush)(halo_device_t* device,
                               halo_queue_affinity_t affinity);
  /* Only ever given semaphores whose device() is |device|. */
  halo_status_t (*wait_semaphores)(halo_device_t* device,
                                   halo_wait_mode_t mode, size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline);
  halo_status_t (*wait_idle)(halo_device_t* device, halo_time_ns_t deadline);
  /* May be NULL: libhalo then returns UNIMPLEMENTED. */
  halo_status_t (*allocate_buffer)(halo_device_t* device,
                                   const halo_buffer_params_t* params,
                                   halo_buffer_t** out_buffer);
  halo_status_t (*create_command_buffer)(
      halo_device_t* device, halo_command_buffer_mode_t mode,
      halo_command_buffer_t** out_command_buffer);
  halo_status_t (*create_executable)(halo_device_t* device,
                                     const halo_executable_params_t* params,
                                     halo_executable_t** out_executable);
  /* --- ABI 1.0 ends here. --- */
} halo_device_vtable_t;

HALO_API void halo_device_retain(halo_device_t* device);
/* Releases |device|. Accepts NULL. The device lives on while its semaphores,
 * buffers or submissions need it. */
HALO_API void halo_device_release(halo_device_t* device);

/* Fills |out_info| (caller sets struct_size). Borrows |device|. */
HALO_API halo_status_t halo_device_query_info(halo_device_t* device,
                                              halo_device_info_t* out_info);
/* Fills |out_capabilities| (caller sets struct_size). Borrows |device|. */
HALO_API halo_status_t halo_device_query_capabilities(
    halo_device_t* device, halo_device_capabilities_t* out_capabilities);

/* Stores in |out_compatibility| what |device| can do with |semaphore| (either
 * may belong to any plugin). Borrows both. */
HALO_API halo_status_t halo_device_semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore,
    halo_semaphore_compatibility_t* out_compatibility);

/* Submits |info| and returns without blocking. The work starts once every wait
 * is reached; the signals are set after every command buffer completes; a
 * failed wait fails every signal semaphore with a copy of its status. With no
 * command buffers the submission is a barrier. Waits may name unsignalled
 * values and semaphores of any device or plugin. Borrows everything; the
 * device retains what it needs. Thread-safe.
 * A signal value must be above its semaphore's payload when the signal lands;
 * if another signal has passed it by then, the semaphore fails with
 * INVALID_ARGUMENT naming the signal, its value and the payload.
 * Returns INVALID_ARGUMENT, submitting nothing, for bad handles, NULL arrays
 * with a non-zero count, values above HALO_SEMAPHORE_MAX_VALUE, or a signal
 * value at or below its semaphore's payload already. */
HALO_API halo_status_t halo_device_queue_execute(
    halo_device_t* device, const halo_queue_execute_info_t* info);

/* Asks the queues in |affinity| to start pending work now. */
HALO_API halo_status_t halo_device_queue_flush(halo_device_t* device,
                                               halo_queue_affinity_t affinity);

/* Blocks until every submission made so far has completed (OK) or |deadline|
 * passes (DEADLINE_EXCEEDED). */
HALO_API halo_status_t halo_device_wait_idle(halo_device_t* device,
                                             halo_time_ns_t deadline);

#endif /* HALO_DEVICE_H_ */
