// The host interface libhalo gives each plugin (plugin.h).
#pragma once

#include "halo/plugin.h"

namespace halo::loader {

// Returns a host interface whose log calls |log| with |self|.
halo_host_interface_t make_host_interface(
    void* self, void (*log)(void* self, halo_log_level_t level,
                            const char* message));

}  // namespace halo::loader
