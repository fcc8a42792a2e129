/* Devices: info, capabilities, semaphores and the queue (DESIGN.md §5).
 *
 * Info and capability structs: the caller sets struct_size first (at least
 * 4); the query fills the struct up to the smaller of that and this header's
 * size of it, sets struct_size to the bytes filled, and leaves 0 in members
 * the device's plugin does not know. Strings are NUL-terminated.
 *
 * Every function below that returns a status returns INVALID_ARGUMENT for a
 * NULL or wrong-type handle or a NULL out-pointer. */
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
#include "halo/external_handle.h"
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
  /* The native API the plugin drives the device through, and its version
   * as that API reports it: "Vulkan 1.3.255", "OpenCL 3.0 PoCL 3.1 …",
   * "CUDA 13.0", "host" for a device that is the host itself.
   * NUL-terminated and never empty from a plugin of ABI 1.2 or later; ""
   * (all zero) from an older plugin. */
  char native_api[64];
  /* The units the device runs workgroups on in parallel: CUDA's
   * multiprocessors, OpenCL's compute units, a host device's worker
   * threads. At least 1 from a plugin of ABI 1.2 or later; where the native
   * API does not say, the plugin reports the least it knows the device has
   * (its README says so). 0 from an older plugin. */
  uint32_t compute_units;
  /* Zero; keeps the struct free of implicit padding. */
  uint32_t reserved1;
  /* --- ABI 1.2 ends here. --- */
} halo_device_info_t;

/* Feature bits: what a device offers. The CTS skips cases whose needs are
 * missing and names the missing bit. */
typedef uint64_t halo_device_features_t;
#define HALO_DEVICE_FEATURE_SEMAPHORES ((halo_device_features_t)1u << 0)
#define HALO_DEVICE_FEATURE_QUEUES ((halo_device_features_t)1u << 1)
/* Buffers; without it halo_buffer_allocate returns UNIMPLEMENTED. */
#define HALO_DEVICE_FEATURE_BUFFERS ((halo_device_features_t)1u << 2)
/* Command buffers; without it halo_command_buffer_create returns
 * UNIMPLEMENTED. */
#define HALO_DEVICE_FEATURE_COMMAND_BUFFERS ((halo_device_features_t)1u << 3)
/* Executables and dispatches; without it halo_executable_create returns
 * UNIMPLEMENTED. */
#define HALO_DEVICE_FEATURE_DISPATCH ((halo_device_features_t)1u << 4)
/* Waits on the device's own semaphores happen on the device, not the host. */
#define HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT \
  ((halo_device_features_t)1u << 5)
/* ABI 1.5: libhalo may, on its own, make this device wait on another
 * plugin's semaphores through imports for device waits
 * (semaphore_wait_import_types; external.h, "Device-side waits across
 * plugins"). A plugin sets it where such a wait releases the device's work
 * no later than a host hand-off would; without it, those imports serve only
 * applications that make them. */
#define HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS \
  ((halo_device_features_t)1u << 6)

typedef struct halo_device_capabilities_t {
  uint32_t struct_size;
  /* Queues 0 … queue_count - 1, selected by halo_queue_affinity_t bits. */
  uint32_t queue_count;
  /* HALO_DEVICE_FEATURE_* bits. */
  halo_device_features_t features;
  /* Largest difference between a semaphore's payload and any pending wait or
   * signal value (Vulkan's maxTimelineSemaphoreValueDifference);
   * HALO_SEMAPHORE_MAX_VALUE where unlimited. */
  uint64_t max_semaphore_value_difference;
  /* Largest halo_buffer_params_t.size; a larger one is RESOURCE_EXHAUSTED. */
  uint64_t max_buffer_size;
  /* A power of two: the default buffer alignment, and what every dispatch
   * binding offset must be a multiple of. */
  uint64_t min_buffer_alignment;
  /* Bitwise OR of the halo_memory_type_t bits the device offers. */
  halo_memory_type_t memory_types;
  uint32_t reserved0;
  /* Comma-separated executable formats that halo_executable_create accepts
   * (see executable.h). */
  char executable_formats[128];
  /* --- ABI 1.0 ends here. --- */
  /* Every member below is 0 from a plugin built for ABI 1.0 or 1.1 (libhalo
   * leaves them so; valid only when the struct_size that comes back covers
   * them) and 0 where the device lacks the feature the member is about.
   * A limit the device does not have is the type's largest value (UINT32_MAX
   * or UINT64_MAX), never 0. */
  /* Bytes of the device's largest memory heap (Vulkan's largest
   * VkMemoryHeap, CL_DEVICE_GLOBAL_MEM_SIZE, cuDeviceTotalMem; the host's
   * physical memory for a host device); at least max_buffer_size. 0 without
   * HALO_DEVICE_FEATURE_BUFFERS. */
  uint64_t device_memory_size;
  /* The most workgroups one dispatch may have in all: the product of
   * halo_dispatch_params_t.workgroup_count may not exceed it, or
   * halo_command_buffer_dispatch returns INVALID_ARGUMENT. UINT64_MAX when
   * the device limits only each dimension (max_workgroup_count). 0 without
   * HALO_DEVICE_FEATURE_DISPATCH. */
  uint64_t max_workgroup_count_total;
  /* The largest workgroup size an entry point may declare in x, y and z
   * (halo_entry_point_info_t.workgroup_size), each at least 1, and the most
   * work-items a workgroup may have in all (the product of the three), at
   * least each of them; halo_executable_create refuses an entry point that
   * declares more. UINT32_MAX where the device sets no limit (a host device
   * whose entry point decides what one call does). 0 without
   * HALO_DEVICE_FEATURE_DISPATCH. */
  uint32_t max_workgroup_size[3];
  uint32_t max_workgroup_invocations;
  /* The most workgroups one dispatch may have in x, y and z, each at least
   * 1: a larger halo_dispatch_params_t.workgroup_count[i] is
   * INVALID_ARGUMENT from halo_command_buffer_dispatch. UINT32_MAX where the
   * device sets no limit in that dimension. 0 without
   * HALO_DEVICE_FEATURE_DISPATCH. */
  uint32_t max_workgroup_count[3];
  /* The most buffer bindings (halo_entry_point_info_t.binding_count) and
   * bytes of constants (constant_size) an entry point may take, each at
   * least 1; halo_executable_create refuses an entry point that takes more.
   * 0 without HALO_DEVICE_FEATURE_DISPATCH. */
  uint32_t max_binding_count;
  uint32_t max_constant_size;
  /* Zero; keeps the struct free of implicit padding. */
  uint32_t reserved1;
  /* --- ABI 1.2 ends here. --- */
  /* The HALO_EXTERNAL_HANDLE_TYPE_* bits the device can export its buffers
   * and semaphores as, and import as buffers and semaphores of its own
   * (external.h). 0 from a plugin older than ABI 1.3. */
  halo_external_handle_type_t buffer_export_types;
  halo_external_handle_type_t buffer_import_types;
  halo_external_handle_type_t semaphore_export_types;
  halo_external_handle_type_t semaphore_import_types;
  /* A power of two that the pointer and the size of an imported
   * HOST_ALLOCATION must be multiples of (Vulkan's
   * minImportedHostPointerAlignment); 0 when buffer_import_types lacks
   * HOST_ALLOCATION. */
  uint64_t host_allocation_alignment;
  /* --- ABI 1.3 ends here. --- */
  /* The types the device imports for device waits only
   * (HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY): a semaphore its queues
   * wait on natively, on the device, whatever the host knows of its
   * payload. libhalo makes device-side waits across plugins through these
   * types alone, and only on a device with
   * HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS (external.h). A type may be
   * in semaphore_import_types too.
   * 0 from a plugin older than ABI 1.5. */
  halo_external_handle_type_t semaphore_wait_import_types;
  /* Zero; keeps the struct free of implicit padding. */
  uint32_t reserved2;
  /* --- ABI 1.5 ends here. --- */
} halo_device_capabilities_t;

/* A bitmask of queues; bit i is queue i. */
typedef uint64_t halo_queue_affinity_t;
#define HALO_QUEUE_AFFINITY_ANY (~(halo_queue_affinity_t)0)

/* One queue submission (halo_device_queue_execute). Every array is borrowed
 * for the call; the device retains every object it names until the
 * submission completes. Arrays may be NULL when their count is 0. */
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

/* The device vtable a plugin implements. Entries marked "may be NULL" may
 * be; every other is required. Each implements the public function of its
 * name, with its rules and codes; libhalo has already checked the handles,
 * NULL pointers, struct sizes and value ranges (DESIGN.md §6). */
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
  /* May be NULL: libhalo then returns UNIMPLEMENTED. */
  halo_status_t (*create_command_buffer)(
      halo_device_t* device, halo_command_buffer_mode_t mode,
      halo_command_buffer_t** out_command_buffer);
  /* May be NULL: libhalo then returns UNIMPLEMENTED. */
  halo_status_t (*create_executable)(halo_device_t* device,
                                     const halo_executable_params_t* params,
                                     halo_executable_t** out_executable);
  /* --- ABI 1.0 ends here. --- */
  /* halo_buffer_import and halo_semaphore_import (external.h); each may be
   * NULL: libhalo then returns UNIMPLEMENTED. libhalo has checked the
   * arguments, and that the device's capabilities name the handle type. */
  halo_status_t (*import_buffer)(halo_device_t* device,
                                 const halo_buffer_params_t* params,
                                 const halo_external_handle_t* handle,
                                 halo_buffer_t** out_buffer);
  halo_status_t (*import_semaphore)(halo_device_t* device,
                                    const halo_external_handle_t* handle,
                                    halo_semaphore_t** out_semaphore);
  /* --- ABI 1.3 ends here. --- */
} halo_device_vtable_t;

/* Adds a reference to |device|. Accepts NULL. Thread-safe. */
HALO_API void halo_device_retain(halo_device_t* device);
/* Drops a reference to |device|. Accepts NULL. Thread-safe. The device lives
 * on while its semaphores, buffers, command buffers, executables or
 * submissions need it. */
HALO_API void halo_device_release(halo_device_t* device);

/* Fills |out_info| with what identifies the device (see the top of this
 * file for struct_size). Borrows |device|. Thread-safe. Returns
 * INVALID_ARGUMENT for an |out_info->struct_size| below 4. */
HALO_API HALO_MUST_USE halo_status_t halo_device_query_info(
    halo_device_t* device, halo_device_info_t* out_info);
/* Fills |out_capabilities| with the device's features, limits, memory types
 * and executable formats (see the top of this file for struct_size). Borrows
 * |device|. Thread-safe. Returns INVALID_ARGUMENT for an
 * |out_capabilities->struct_size| below 4. */
HALO_API HALO_MUST_USE halo_status_t halo_device_query_capabilities(
    halo_device_t* device, halo_device_capabilities_t* out_capabilities);

/* Stores in |out_compatibility| what |device| can do with |semaphore|, which
 * may belong to any device of any plugin: HALO_SEMAPHORE_COMPATIBILITY_ALL
 * for the device's own semaphores (DEVICE_WAIT alone for one imported for
 * device waits only), at least HOST_WAIT | HOST_SIGNAL for others, with
 * DEVICE_WAIT where the device waits on them on the device: natively, or
 * through an import libhalo makes (external.h, "Device-side waits across
 * plugins"). Borrows both. Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_device_semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore,
    halo_semaphore_compatibility_t* out_compatibility);

/* Submits |info| and returns without blocking. The work starts once every wait
 * is reached; the signals are set after every command buffer completes, and
 * the work's writes are then visible to whatever waits for them. A failed
 * wait fails every signal semaphore with a copy of its status, and the
 * command buffers do not run; work that fails on the device fails every
 * signal semaphore with its status. With no command buffers the submission
 * is a barrier. Waits may name unsignalled values and semaphores of any
 * device or plugin. Only semaphores order submissions (see command_buffer.h
 * for the order within one). Borrows everything; the device retains what it
 * names until the submission completes, so the caller may release it at
 * once. Thread-safe.
 * A signal value must be above its semaphore's payload when the signal lands;
 * if another signal has passed it by then, the semaphore fails with
 * INVALID_ARGUMENT naming the signal, its value and the payload.
 * On an error nothing is submitted: INVALID_ARGUMENT for a NULL |info|, a
 * struct_size below ABI 1.0's, NULL arrays with a non-zero count, values above
 * HALO_SEMAPHORE_MAX_VALUE, a signal value at or below its semaphore's
 * payload already, a value farther than the device's
 * max_semaphore_value_difference from the payload of one of its own
 * semaphores, an |affinity| that selects none of the device's queues, or a
 * command buffer of another device or plugin; FAILED_PRECONDITION for a
 * command buffer not ended, or a ONE_SHOT one submitted before or listed
 * twice (see command_buffer.h); RESOURCE_EXHAUSTED when memory runs out. */
HALO_API HALO_MUST_USE halo_status_t halo_device_queue_execute(
    halo_device_t* device, const halo_queue_execute_info_t* info);

/* Asks the queues in |affinity| to start work that is submitted and ready
 * now, where a device would otherwise gather more first. Submitted work
 * starts without it; it never blocks on device work and orders nothing.
 * Borrows |device|. Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_device_queue_flush(
    halo_device_t* device, halo_queue_affinity_t affinity);

/* Blocks until every submission made to |device| before the call is done
 * (OK), or |deadline| passes (DEADLINE_EXCEEDED). A submission is done once
 * it completed or failed; its failure shows on its signal semaphores, not
 * here. One still waiting for a semaphore is not done, so a wait that is
 * never signalled blocks until |deadline|. HALO_DEADLINE_INFINITE_PAST polls
 * without blocking. After OK, the done submissions hold no reference to
 * anything they named, |device| included: a device whose last reference the
 * application then releases is torn down inside that release, not later on
 * a plugin's thread while the application goes on or exits. Borrows
 * |device|. Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_device_wait_idle(
    halo_device_t* device, halo_time_ns_t deadline);

#endif /* HALO_DEVICE_H_ */
