/* The plugin boundary: the host interface libhalo gives a plugin, the
 * descriptor the plugin returns, and the one symbol it exports.
 *
 * A plugin exports exactly halo_plugin_query. It links nothing of halo:
 * allocation, logging, statuses and reference counting arrive through the host
 * interface, which stays valid until the plugin's last object is destroyed. */
#ifndef HALO_PLUGIN_H_
#define HALO_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"
#include "halo/allocator.h"
#include "halo/deadline.h"
#include "halo/driver.h"
#include "halo/object.h"
#include "halo/status.h"

typedef enum halo_log_level_e {
  HALO_LOG_LEVEL_ERROR = 1,
  HALO_LOG_LEVEL_WARN = 2,
  HALO_LOG_LEVEL_INFO = 3,
  HALO_LOG_LEVEL_DEBUG = 4
} halo_log_level_t;

/* What libhalo offers a plugin. Every function is thread-safe. */
typedef struct halo_host_interface_t {
  uint32_t struct_size;
  /* The host's HALO_ABI_VERSION. */
  uint32_t abi_version;
  /* Passed back to log. */
  void* self;
  halo_allocator_t allocator;
  /* Status helpers: see status.h for their contracts. */
  halo_status_t (*status_create)(halo_status_code_t code, const char* message);
  halo_status_t (*status_format)(halo_status_code_t code, const char* format,
                                 ...);
  halo_status_t (*status_clone)(halo_status_t status);
  void (*status_free)(halo_status_t status);
  halo_status_code_t (*status_code)(halo_status_t status);
  const char* (*status_message)(halo_status_t status);
  halo_status_t (*status_annotate)(halo_status_t status, const char* prefix);
  /* Logs |message| at |level| (shown per HALO_LOADER_DEBUG); the plugin's name
   * is added by the host. */
  void (*log)(void* self, halo_log_level_t level, const char* message);
  /* Reference counting of any halo object; release destroys at zero. Plugins
   * must release through this so the host sees every destruction. */
  void (*object_retain)(halo_object_t* object);
  void (*object_release)(halo_object_t* object);
  halo_time_ns_t (*time_now_ns)(void);
  /* An immortal status without allocation (see halo_status_from_code). */
  halo_status_t (*status_from_code)(halo_status_code_t code);
  /* --- ABI 1.0 ends here. --- */
} halo_host_interface_t;

/* What halo_plugin_query receives. */
typedef struct halo_plugin_query_params_t {
  uint32_t struct_size;
  /* The host accepts plugins whose ABI version lies in
   * [abi_version_min, abi_version_max] (HALO_MAKE_VERSION values). */
  uint32_t abi_version_min;
  uint32_t abi_version_max;
  uint32_t reserved0;
  /* Borrowed; valid until the plugin's last object is destroyed. */
  const halo_host_interface_t* host;
  /* --- ABI 1.0 ends here. --- */
} halo_plugin_query_params_t;

/* What a plugin returns: static data, valid while the library is loaded. */
typedef struct halo_plugin_descriptor_t {
  uint32_t struct_size;
  /* The HALO_ABI_VERSION the plugin was built against. */
  uint32_t abi_version;
  /* Short unique name, e.g. "cpu". Must match the manifest's plugin.name. */
  const char* name;
  /* The plugin's own version. */
  const char* version;
  /* Creates the plugin's driver (its initialisation). Returns a new reference
   * in |out_driver|, or a status saying why the plugin cannot run here. */
  halo_status_t (*create_driver)(const halo_host_interface_t* host,
                                 halo_driver_t** out_driver);
  /* --- ABI 1.0 ends here. --- */
} halo_plugin_descriptor_t;

/* The one exported symbol. Returns the descriptor, or NULL (with the reason
 * sent to |params->host->log|) when the plugin cannot serve the host's ABI
 * range. */
typedef const halo_plugin_descriptor_t* (*halo_plugin_query_fn_t)(
    const halo_plugin_query_params_t* params);
#define HALO_PLUGIN_QUERY_SYMBOL "halo_plugin_query"

#endif /* HALO_PLUGIN_H_ */
