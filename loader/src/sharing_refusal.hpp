// What libhalo makes of a plugin's refusal to export or import, when it
// shares a semaphore or buffer on its own (device_side_waits.cpp,
// shared_buffers.cpp): whether the same sharing may be tried again, or is
// remembered as impossible for the pair.
#pragma once

#include "halo/status.h"

namespace halo::loader {

// True when a sharing refused with |status| may succeed later: memory or
// descriptors ran out (RESOURCE_EXHAUSTED), or the process had no file
// descriptor to spare when it was refused. Drivers report the latter in
// their own ways: NVIDIA's Vulkan driver (580) refuses a buffer's sharing
// then with a code that halo cannot tell from a lasting refusal.
bool refusal_may_pass(halo_status_t status) noexcept;

}  // namespace halo::loader
