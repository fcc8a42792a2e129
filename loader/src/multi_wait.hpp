// Waits on semaphores of any mix of devices and plugins (DESIGN.md §4).
#pragma once

#include "halo/semaphore.h"

namespace halo::loader {

// Waits on checked (semaphore, value) pairs. One device's semaphores go to
// that device's wait_semaphores (native: vkWaitSemaphores, futex, …); a mix
// goes through the plugin SDK's multi-wait (halo/sdk/multi_wait.hpp), which
// queries each semaphore and then blocks on a timepoint on each and one
// futex word, the same wait the SDK's plugins run over their own timelines.
halo_status_t wait_semaphores(halo_wait_mode_t mode, size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values, halo_time_ns_t deadline);

}  // namespace halo::loader
