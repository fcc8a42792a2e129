// halo/sdk/c/plugin_query.h.
#include "halo/sdk/c/plugin_query.h"

#include <cstddef>

#include "halo/sdk/host.hpp"

namespace {

// The host interface must cover everything of ABI 1.0 the SDK calls.
constexpr uint32_t kMinimumHostSize =
    offsetof(halo_host_interface_t, status_from_code) +
    sizeof(halo_host_interface_t::status_from_code);

}  // namespace

const halo_plugin_descriptor_t* halo_sdk_plugin_query(
    const halo_plugin_query_params_t* params,
    const halo_plugin_descriptor_t* descriptor) {
  if (params == nullptr ||
      params->struct_size < offsetof(halo_plugin_query_params_t, host) +
                                sizeof(params->host) ||
      params->host == nullptr) {
    return nullptr;
  }
  const halo_host_interface_t* host = params->host;
  halo::sdk::Host log_host(host);
  if (host->struct_size < kMinimumHostSize) {
    // log sits at its ABI 1.0 position in any host (members only append).
    log_host.log(HALO_LOG_LEVEL_ERROR,
                 "host interface is %u bytes; the %s plugin needs the %u "
                 "bytes of ABI 1.0",
                 host->struct_size, descriptor->name, kMinimumHostSize);
    return nullptr;
  }
  // Only the major must be in the host's range: a plugin of a newer minor
  // loads in an older host of its major, which reads only the members it
  // knows (DESIGN.md §2.3).
  const uint32_t version = descriptor->abi_version;
  const uint32_t major = HALO_VERSION_MAJOR(version);
  if (major < HALO_VERSION_MAJOR(params->abi_version_min) ||
      major > HALO_VERSION_MAJOR(params->abi_version_max)) {
    log_host.log(HALO_LOG_LEVEL_ERROR,
                 "the %s plugin speaks ABI %u.%u; the host accepts %u.%u to "
                 "%u.%u",
                 descriptor->name, HALO_VERSION_MAJOR(version),
                 HALO_VERSION_MINOR(version),
                 HALO_VERSION_MAJOR(params->abi_version_min),
                 HALO_VERSION_MINOR(params->abi_version_min),
                 HALO_VERSION_MAJOR(params->abi_version_max),
                 HALO_VERSION_MINOR(params->abi_version_max));
    return nullptr;
  }
  halo::sdk::set_current_host(host);
  return descriptor;
}
