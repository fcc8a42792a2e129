// The opencl plugin's one exported symbol (see halo/sdk/plugin_entry.hpp).
#include "driver.hpp"
#include "halo/sdk/plugin_entry.hpp"

HALO_SDK_DEFINE_PLUGIN_QUERY("opencl", halo::cl::kVersion,
                             &halo::cl::Driver::create)
