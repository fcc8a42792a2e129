// The one exported symbol of a C++ plugin, written once:
//
//   HALO_SDK_DEFINE_PLUGIN_QUERY("cpu", halo::cpu::kVersion,
//                                &halo::cpu::Driver::create)
//
// defines halo_plugin_query returning a descriptor of the plugin named
// "cpu", built against this header's HALO_ABI_VERSION, whose create_driver
// is the given factory. The answer is halo_sdk_plugin_query's
// (halo/sdk/c/plugin_query.h): NULL, with the reason logged through the
// host naming the plugin ("host interface is N bytes; the cpu plugin needs
// …", "the cpu plugin speaks ABI 1.0; the host accepts …"), when params or
// its host is NULL, the host interface is smaller than ABI 1.0's or the
// host's ABI range excludes the plugin's; else the descriptor, after making
// the host the SDK's current host (sdk::current_host).
#ifndef HALO_SDK_PLUGIN_ENTRY_HPP_
#define HALO_SDK_PLUGIN_ENTRY_HPP_

#include "halo/plugin.h"
#include "halo/sdk/c/plugin_query.h"

// Defines the exported halo_plugin_query of the plugin |plugin_name| (a
// string literal or other static string), |plugin_version| (likewise) and
// |driver_factory| (a halo_status_t(const halo_host_interface_t*,
// halo_driver_t**) function). Use once, at namespace scope, in one file.
#define HALO_SDK_DEFINE_PLUGIN_QUERY(plugin_name, plugin_version,           \
                                     driver_factory)                        \
  HALO_PLUGIN_EXPORT const halo_plugin_descriptor_t* halo_plugin_query(     \
      const halo_plugin_query_params_t* params) {                           \
    static const halo_plugin_descriptor_t halo_sdk_descriptor_ = {          \
        .struct_size = sizeof(halo_plugin_descriptor_t),                    \
        .abi_version = HALO_ABI_VERSION,                                    \
        .name = (plugin_name),                                              \
        .version = (plugin_version),                                        \
        .create_driver = (driver_factory),                                  \
    };                                                                      \
    return halo_sdk_plugin_query(params, &halo_sdk_descriptor_);            \
  }

#endif  // HALO_SDK_PLUGIN_ENTRY_HPP_
