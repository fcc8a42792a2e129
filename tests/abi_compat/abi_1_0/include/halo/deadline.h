/* Time: every timeout in halo is an absolute deadline.
 *
 * Deadlines are nanoseconds of CLOCK_MONOTONIC. Two constants stand for "never
 * give up" (block) and "already passed" (poll: never blocks). Absolute
 * deadlines compose across nested waits without drift. */
#ifndef HALO_DEADLINE_H_
#define HALO_DEADLINE_H_

#include <stdint.h>

#include "halo/abi.h"

/* Absolute time in nanoseconds of CLOCK_MONOTONIC. */
typedef int64_t halo_time_ns_t;

/* Wait forever. */
#define HALO_DEADLINE_INFINITE_FUTURE ((halo_time_ns_t)INT64_MAX)
/* Poll: check once and return at once. */
#define HALO_DEADLINE_INFINITE_PAST ((halo_time_ns_t)INT64_MIN)

/* Returns the current CLOCK_MONOTONIC time in nanoseconds. Thread-safe. */
HALO_API halo_time_ns_t halo_time_now_ns(void);

/* Returns the deadline |timeout_ns| from now, saturating to the infinite
 * constants (a negative timeout is already past). Thread-safe. */
HALO_API halo_time_ns_t halo_deadline_after_ns(int64_t timeout_ns);

#endif /* HALO_DEADLINE_H_ */
