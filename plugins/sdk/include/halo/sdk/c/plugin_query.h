/* The SDK's answer to halo_plugin_query, for plugins written in C.
 *
 *   HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
 *       const halo_plugin_query_params_t* params) {
 *     return halo_sdk_plugin_query(params, &kDescriptor);
 *   }
 */
#ifndef HALO_SDK_C_PLUGIN_QUERY_H_
#define HALO_SDK_C_PLUGIN_QUERY_H_

#include "halo/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns |descriptor| when the host can load the plugin: its interface
 * covers ABI 1.0 and its ABI range includes the descriptor's major version
 * (a newer minor loads in an older host of its major: DESIGN.md §2.3).
 * Otherwise logs why through the host (naming the descriptor's plugin) and
 * returns NULL. Makes the host the SDK's current host. */
const halo_plugin_descriptor_t* halo_sdk_plugin_query(
    const halo_plugin_query_params_t* params,
    const halo_plugin_descriptor_t* descriptor);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* HALO_SDK_C_PLUGIN_QUERY_H_ */
