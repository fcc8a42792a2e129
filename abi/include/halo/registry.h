/* The registry: discovers plugins, loads them, and lists their devices
 * (DESIGN.md §6).
 *
 * Creating a registry scans once; the result is an immutable snapshot, so
 * every query is thread-safe. Create another registry to re-scan. Plugins are
 * unloaded only when the registry is gone and none of their objects lives. */
#ifndef HALO_REGISTRY_H_
#define HALO_REGISTRY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/allocator.h"
#include "halo/device.h"
#include "halo/driver.h"
#include "halo/status.h"

typedef struct halo_registry_t halo_registry_t;

typedef uint32_t halo_registry_flags_t;
/* Ignore HALO_PLUGIN_FILES, HALO_ADD_PLUGIN_FILES and the filters. */
#define HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT ((halo_registry_flags_t)1u << 0)
/* Skip the manifest folders (build tree, prefix, XDG, /etc). */
#define HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS ((halo_registry_flags_t)1u << 1)
/* --- ABI 1.1: the validation mode (README.md, "Validation"). --- */
/* Validate every object obtained through this registry: use after release
 * and double release, objects still alive when the registry is released
 * (leaks), cycles of submissions waiting on each other's signals, infinite
 * host waits that no queued submission will satisfy, host access to buffer
 * ranges that pending work uses, and signals that can never land. Each
 * problem is logged ("halo: error: validation: …", whatever
 * HALO_LOADER_DEBUG says) and, where a call can refuse it, returned as a
 * status: the call then does nothing. Setting HALO_VALIDATION=1 in the
 * environment does the same for every registry. A host library of ABI 1.0
 * refuses this bit as unknown. */
#define HALO_REGISTRY_FLAG_VALIDATION ((halo_registry_flags_t)1u << 2)
/* As HALO_REGISTRY_FLAG_VALIDATION (implied), but each report is printed to
 * stderr and aborts the process; as HALO_VALIDATION=fatal. ABI 1.1. */
#define HALO_REGISTRY_FLAG_VALIDATION_FATAL ((halo_registry_flags_t)1u << 3)
/* Every flag bit above. halo_registry_create refuses any other bit with
 * INVALID_ARGUMENT, so that a bit can be given a meaning later. A new flag is
 * appended here and to this mask. */
#define HALO_REGISTRY_FLAGS_KNOWN                \
  (HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT |       \
   HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |       \
   HALO_REGISTRY_FLAG_VALIDATION |               \
   HALO_REGISTRY_FLAG_VALIDATION_FATAL)

typedef struct halo_registry_options_t {
  uint32_t struct_size;
  halo_registry_flags_t flags;
  /* Manifests, plugin libraries or folders of manifests, searched first. */
  size_t plugin_path_count;
  const char* const* plugin_paths;
  /* --- ABI 1.0 ends here. --- */
  /* The host allocator of this registry's plugins, or NULL for libhalo's own
   * (posix_memalign and free). Every plugin the registry loads receives it
   * in its host interface (plugin.h) and takes from it all host memory of
   * the objects it makes: drivers, devices, semaphores, buffers, command
   * buffers, executables, submissions and their timepoints. libhalo's own
   * memory does not go through it: statuses (also those a plugin creates
   * through the host interface), the registry and its records, validation's
   * bookkeeping, and the transient timepoints of a host wait that mixes
   * semaphores of several devices (halo_semaphores_wait), which belongs to
   * no one registry.
   *
   * halo_registry_create copies the struct; |self|, |allocate| and |free|
   * must stay valid, and keep working, until every object obtained through
   * the registry and the registry itself are released (objects outlive the
   * registry). Both functions are called from any thread, concurrently,
   * including the plugins' own threads: they must be thread-safe, must not
   * call back into halo, and |free| must accept memory from |allocate| on
   * any thread. A plugin library loaded by several registries with
   * different allocators takes each object's memory from the allocator of
   * the registry through which the object's driver was obtained. ABI 1.2;
   * a host library of ABI 1.0 or 1.1 ignores this member. */
  const halo_allocator_t* allocator;
  /* --- ABI 1.2 ends here. --- */
} halo_registry_options_t;

/* Scans for plugins and loads them; each plugin fails alone. |options| may be
 * NULL; a struct_size of ABI 1.0 (without |allocator|) is accepted. Returns a
 * new registry in |out_registry|. Thread-safe. Returns INVALID_ARGUMENT for a
 * NULL |out_registry| or malformed options: a struct_size below 8, NULL
 * paths, flag bits outside HALO_REGISTRY_FLAGS_KNOWN, or an |allocator|
 * whose struct_size is below ABI 1.0's halo_allocator_t or whose |allocate|
 * or |free| is NULL (the message names halo_registry_create and the
 * field). */
HALO_API HALO_MUST_USE halo_status_t halo_registry_create(
    const halo_registry_options_t* options, halo_registry_t** out_registry);

/* Destroys |registry|. Accepts NULL. Objects obtained from it stay valid. */
HALO_API void halo_registry_release(halo_registry_t* registry);

typedef enum halo_plugin_state_e {
  HALO_PLUGIN_STATE_LOADED = 0,
  HALO_PLUGIN_STATE_SKIPPED = 1
} halo_plugin_state_t;

/* What happened to one plugin the scan considered. Strings are owned by the
 * registry. */
typedef struct halo_plugin_record_t {
  uint32_t struct_size;
  /* One of halo_plugin_state_t. */
  uint32_t state;
  /* From the manifest or descriptor; the file name when neither was read. */
  const char* name;
  /* The manifest, or "" when the plugin was named by its library. */
  const char* manifest_path;
  /* The library, resolved. */
  const char* library_path;
  /* Where the path came from: "api", "HALO_PLUGIN_FILES", "build-tree", … */
  const char* source;
  /* The plugin's ABI version (HALO_MAKE_VERSION), 0 when unknown. */
  uint32_t abi_version;
  int32_t priority;
  /* For skipped plugins: why, as a code and a message; OK and "" if loaded. */
  halo_status_code_t skip_code;
  uint32_t reserved0;
  const char* skip_reason;
  /* --- ABI 1.0 ends here. --- */
} halo_plugin_record_t;

/* Number of plugins considered (loaded or skipped), in load order. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_plugin_count(
    halo_registry_t* registry, size_t* out_count);
/* Fills |out_record| (caller sets struct_size) for plugin |index|. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_plugin_record(
    halo_registry_t* registry, size_t index, halo_plugin_record_t* out_record);

/* Number of loaded drivers, ordered by priority (high first), then name. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_driver_count(
    halo_registry_t* registry, size_t* out_count);
/* Returns a new reference to driver |index| in |out_driver|. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_driver(
    halo_registry_t* registry, size_t index, halo_driver_t** out_driver);
/* Returns a new reference to the driver of the plugin called |name|, or
 * NOT_FOUND. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_find_driver(
    halo_registry_t* registry, const char* name, halo_driver_t** out_driver);

/* Every device of every driver, as of the scan, ordered by driver priority,
 * then device type, then name. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_device_count(
    halo_registry_t* registry, size_t* out_count);
/* Fills |out_info| (caller sets struct_size) for device |index| and, when
 * |out_driver_index| is not NULL, the index of its driver. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_device_info(
    halo_registry_t* registry, size_t index, halo_device_info_t* out_info,
    size_t* out_driver_index);
/* Creates device |index|; a new reference in |out_device|. Checks |params|
 * and the device as halo_driver_create_device does. */
HALO_API HALO_MUST_USE halo_status_t halo_registry_create_device(
    halo_registry_t* registry, size_t index, const halo_device_params_t* params,
    halo_device_t** out_device);

#endif /* HALO_REGISTRY_H_ */
