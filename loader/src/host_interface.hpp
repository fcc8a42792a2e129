// The host interface libhalo gives each plugin (plugin.h).
#pragma once

#include "halo/plugin.h"

namespace halo::loader {

// Returns a host interface whose log calls |log| with |self| and whose
// allocator is |allocator| (copied; checked by the caller), or libhalo's own
// (posix_memalign and free) when |allocator| is NULL.
halo_host_interface_t make_host_interface(
    void* self,
    void (*log)(void* self, halo_log_level_t level, const char* message),
    const halo_allocator_t* allocator = nullptr);

}  // namespace halo::loader
