// How a queue submission signals a semaphore (DESIGN.md §5): never silently.
//
// A host signal the semaphore refuses comes back to its caller as a status.
// A queue's signal has no caller left to tell, and a semaphore that quietly
// stays below the value leaves everyone waiting on it hanging. So a queue
// signal the semaphore refuses — most often because another signal got past
// the value first — fails the semaphore with the reason instead: its waiters
// wake with INVALID_ARGUMENT naming the signal, its value and the payload.
#ifndef HALO_SDK_QUEUE_SIGNAL_HPP_
#define HALO_SDK_QUEUE_SIGNAL_HPP_

#include <cstddef>
#include <cstdint>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

// Signals |semaphore| (of any plugin, through its own vtable) to |value| for
// signal |index| of a queue submission. If the semaphore refuses, fails it
// with the refusal: INVALID_ARGUMENT "queue signal |index|: value V is not
// above the semaphore's payload P" when it is already at or past |value|,
// else the semaphore's own error annotated with the signal. A semaphore that
// has already failed keeps its first failure. Borrows everything.
// Thread-safe; never blocks.
void signal_from_queue(Host host, halo_semaphore_t* semaphore, uint64_t value,
                       size_t index) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_QUEUE_SIGNAL_HPP_
