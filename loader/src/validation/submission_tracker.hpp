// The submissions of validating registries' devices still pending, and the
// checks made against them: deadlock cycles and unreachable signals at
// submission, host access hazards, and host waits that nothing queued will
// satisfy.
//
// A submission is pending while any of its signals is below its value and
// not failed; completed ones are pruned lazily, whenever the tracker is
// consulted. The tracker holds a reference to every semaphore a pending
// submission names. Every member is noexcept: out of memory skips a check.
#pragma once

#include <string>

#include "halo/device.h"
#include "halo/status.h"

namespace halo::loader::validation {

// halo_device_queue_execute while enabled(): for a device of a validating
// registry, refuses a signal list naming a semaphore twice or a signal that
// conflicts with a pending one (INVALID_ARGUMENT), and a submission that
// closes a cycle of waits (FAILED_PRECONDITION), each reported, before the
// plugin sees it; then submits and records the submission. |info| has passed
// libhalo's checks.
halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info,
                            const char* function) noexcept;

// Host access to [|offset|, |offset| + |length|) of |buffer| while
// enabled(): FAILED_PRECONDITION (reported) when a pending submission that
// can run without the host writes the range, or, when |host_writes|, reads
// it.
halo_status_t check_host_access(halo_buffer_t* buffer, uint64_t offset,
                                uint64_t length, bool host_writes,
                                const char* function) noexcept;

// Why nothing queued will bring |semaphore| to |value|: "<semaphore> is at
// 2; the pending signals on it: …"; empty when it has reached or failed, or
// a pending submission signals it that far.
std::string unsignalled_wait(halo_semaphore_t* semaphore,
                             uint64_t value) noexcept;

// Drops every submission that is no longer pending.
void prune_submissions() noexcept;

}  // namespace halo::loader::validation
