// Host waits with an infinite deadline under validation: after a grace
// period, a wait that no queued submission will satisfy is reported (the
// program may be hung), and the wait goes on, as another thread may still
// signal on the host.
#pragma once

#include "halo/semaphore.h"

namespace halo::loader::validation {

// halo_semaphore_wait(|semaphore|, |value|, HALO_DEADLINE_INFINITE_FUTURE)
// while enabled().
[[gnu::cold]] halo_status_t wait_forever(halo_semaphore_t* semaphore,
                                         uint64_t value,
                                         const char* function) noexcept;

// halo_semaphores_wait(..., HALO_DEADLINE_INFINITE_FUTURE) while enabled();
// the arguments have passed libhalo's checks and |count| is not 0.
halo_status_t wait_all_or_any_forever(halo_wait_mode_t mode, size_t count,
                                      halo_semaphore_t* const* semaphores,
                                      const uint64_t* values,
                                      const char* function);

}  // namespace halo::loader::validation
