/* plugin.c: the template plugin's descriptor and its one exported symbol. */
#include "halo/plugin.h"
#include "halo/sdk/c/plugin_query.h"
#include "template_plugin.h"

/* What the loader reads after halo_plugin_query: the ABI version the plugin was
 * built against, its name (which must match the manifest's plugin.name) and
 * version, and the function that creates its driver. */
static const halo_plugin_descriptor_t kDescriptor = {
    .struct_size = sizeof(halo_plugin_descriptor_t),
    .abi_version = HALO_ABI_VERSION,
    .name = TEMPLATE_PLUGIN_NAME,
    .version = TEMPLATE_PLUGIN_VERSION,
    .create_driver = template_driver_create,
};

/* The one symbol the plugin exports (DESIGN.md §2.1). The SDK checks that the
 * host's interface covers ABI 1.0 and that its ABI range includes this
 * descriptor's major version; if not, it logs why through the host and returns NULL,
 * and the loader skips this plugin with that reason. Nothing else happens here:
 * the plugin's initialisation is create_driver (driver.c). */
HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params) {
  return halo_sdk_plugin_query(params, &kDescriptor);
}
