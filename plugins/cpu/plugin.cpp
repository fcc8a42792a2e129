// The cpu plugin's one exported symbol (see halo/sdk/plugin_entry.hpp).
#include "driver.hpp"
#include "halo/sdk/plugin_entry.hpp"

HALO_SDK_DEFINE_PLUGIN_QUERY("cpu", halo::cpu::kVersion,
                             &halo::cpu::Driver::create)
