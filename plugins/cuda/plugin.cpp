// The cuda plugin's one exported symbol (see halo/sdk/plugin_entry.hpp).
#include "driver.hpp"
#include "halo/sdk/plugin_entry.hpp"

HALO_SDK_DEFINE_PLUGIN_QUERY("cuda", halo::cuda::kVersion,
                             &halo::cuda::Driver::create)
