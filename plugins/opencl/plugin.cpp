// The opencl plugin's one exported symbol and its descriptor.
#include <cstddef>

#include "driver.hpp"
#include "halo/plugin.h"
#include "halo/sdk/host.hpp"

namespace halo::cl {
namespace {

halo_status_t create_driver(const halo_host_interface_t* host,
                            halo_driver_t** out_driver) {
  return Driver::create(host, out_driver);
}

const halo_plugin_descriptor_t kDescriptor = {
    sizeof(halo_plugin_descriptor_t),
    HALO_ABI_VERSION,
    "opencl",
    kVersion,
    &create_driver,
};

// The host interface must cover everything of ABI 1.0 the plugin calls.
constexpr uint32_t kMinimumHostSize =
    offsetof(halo_host_interface_t, status_from_code) +
    sizeof(halo_host_interface_t::status_from_code);

}  // namespace
}  // namespace halo::cl

HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(
    const halo_plugin_query_params_t* params) {
  if (params == nullptr || params->host == nullptr) return nullptr;
  const halo_host_interface_t* host = params->host;
  halo::sdk::Host log_host(host);
  if (host->struct_size < halo::cl::kMinimumHostSize) {
    // log sits at its ABI 1.0 position in any host (members only append).
    log_host.log(HALO_LOG_LEVEL_ERROR,
                 "host interface is %u bytes; the opencl plugin needs the %u "
                 "bytes of ABI 1.0",
                 host->struct_size, halo::cl::kMinimumHostSize);
    return nullptr;
  }
  if (params->abi_version_min > HALO_ABI_VERSION ||
      params->abi_version_max < HALO_ABI_VERSION) {
    log_host.log(HALO_LOG_LEVEL_ERROR,
                 "the opencl plugin speaks ABI %u.%u; the host accepts %u.%u "
                 "to %u.%u",
                 HALO_ABI_VERSION_MAJOR, HALO_ABI_VERSION_MINOR,
                 HALO_VERSION_MAJOR(params->abi_version_min),
                 HALO_VERSION_MINOR(params->abi_version_min),
                 HALO_VERSION_MAJOR(params->abi_version_max),
                 HALO_VERSION_MINOR(params->abi_version_max));
    return nullptr;
  }
  halo::sdk::set_current_host(host);
  return &halo::cl::kDescriptor;
}
