// semaphore.*: creation, query, signal, failure and host waits on one thread
// (DESIGN.md §4). Multi-semaphore waits live in semaphore_wait_many_cases.cpp,
// waits across threads in semaphore_threads_cases.cpp.
#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kMax = HALO_SEMAPHORE_MAX_VALUE;

// --- create and query ---------------------------------------------------------

HALO_CTS_CASE("semaphore.create.initial_zero", kNeedSemaphores,
              "a semaphore created with 0 reads back 0") {
  CTS_ASSERT_EQ(value_of(ctx.semaphore(0)), 0u);
}

HALO_CTS_CASE("semaphore.create.initial_nonzero", kNeedSemaphores,
              "semaphores created with 1, 42 and 2^40 read back those values") {
  for (uint64_t initial : {uint64_t{1}, uint64_t{42}, uint64_t{1} << 40}) {
    CTS_ASSERT_EQ(value_of(ctx.semaphore(initial)), initial);
  }
}

HALO_CTS_CASE("semaphore.create.initial_max", kNeedSemaphores,
              "a semaphore created with HALO_SEMAPHORE_MAX_VALUE reads back MAX") {
  CTS_ASSERT_EQ(value_of(ctx.semaphore(kMax)), kMax);
}

HALO_CTS_CASE("semaphore.create.initial_above_max", kNeedSemaphores,
              "creating with MAX+1 or UINT64_MAX is INVALID_ARGUMENT and yields no semaphore") {
  for (uint64_t initial : {kMax + 1, ~uint64_t{0}}) {
    halo_semaphore_t* semaphore = nullptr;
    CTS_ASSERT_STATUS(halo_semaphore_create(ctx.device(), initial,
                                            HALO_SEMAPHORE_FLAG_NONE,
                                            &semaphore),
                      HALO_STATUS_INVALID_ARGUMENT);
    CTS_ASSERT(semaphore == nullptr);
  }
}

HALO_CTS_CASE("semaphore.create.many", kNeedSemaphores,
              "1,000 semaphores live at once, each keeping its own value") {
  std::vector<halo_semaphore_t*> semaphores;
  for (uint64_t i = 0; i < 1000; ++i) semaphores.push_back(ctx.semaphore(i));
  for (uint64_t i = 0; i < 1000; ++i) {
    CTS_ASSERT_EQ(value_of(semaphores[i]), i);
  }
}

HALO_CTS_CASE("semaphore.query.stable", kNeedSemaphores,
              "querying twice without a signal gives the same value") {
  halo_semaphore_t* semaphore = ctx.semaphore(7);
  CTS_ASSERT_EQ(value_of(semaphore), 7u);
  CTS_ASSERT_EQ(value_of(semaphore), 7u);
}

HALO_CTS_CASE("semaphore.retain.release", kNeedSemaphores,
              "an extra retain keeps a semaphore usable after the creator's release") {
  halo_semaphore_t* semaphore = nullptr;
  CTS_ASSERT_OK(halo_semaphore_create(ctx.device(), 3, HALO_SEMAPHORE_FLAG_NONE,
                                      &semaphore));
  halo_semaphore_retain(semaphore);
  halo_semaphore_release(semaphore);
  halo_status_t status = halo_semaphore_signal(semaphore, 4);
  uint64_t value = 0;
  halo_status_t query = halo_semaphore_query(semaphore, &value);
  halo_semaphore_release(semaphore);
  CTS_ASSERT_OK(status);
  CTS_ASSERT_OK(query);
  CTS_ASSERT_EQ(value, 4u);
}

// --- signal -------------------------------------------------------------------

HALO_CTS_CASE("semaphore.signal.upward", kNeedSemaphores,
              "signals 1, 2, 5, 1000, 2^62, MAX-1, MAX each read back at once") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (uint64_t value : {uint64_t{1}, uint64_t{2}, uint64_t{5}, uint64_t{1000},
                         uint64_t{1} << 62, kMax - 1, kMax}) {
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, value));
    CTS_ASSERT_EQ(value_of(semaphore), value);
  }
}

HALO_CTS_CASE("semaphore.signal.same_value", kNeedSemaphores,
              "signalling the current value is INVALID_ARGUMENT and leaves it unchanged") {
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  CTS_ASSERT_STATUS(halo_semaphore_signal(semaphore, 5),
                    HALO_STATUS_INVALID_ARGUMENT);
  CTS_ASSERT_EQ(value_of(semaphore), 5u);
  halo_semaphore_t* at_max = ctx.semaphore(kMax);
  CTS_ASSERT_STATUS(halo_semaphore_signal(at_max, kMax),
                    HALO_STATUS_INVALID_ARGUMENT);
  CTS_ASSERT_EQ(value_of(at_max), kMax);
}

HALO_CTS_CASE("semaphore.signal.lower_value", kNeedSemaphores,
              "signalling below the current value (or 0) is INVALID_ARGUMENT and leaves it unchanged") {
  halo_semaphore_t* semaphore = ctx.semaphore(10);
  for (uint64_t value : {uint64_t{9}, uint64_t{1}, uint64_t{0}}) {
    CTS_ASSERT_STATUS(halo_semaphore_signal(semaphore, value),
                      HALO_STATUS_INVALID_ARGUMENT);
    CTS_ASSERT_EQ(value_of(semaphore), 10u);
  }
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 11));
  CTS_ASSERT_EQ(value_of(semaphore), 11u);
}

HALO_CTS_CASE("semaphore.signal.above_max", kNeedSemaphores,
              "signalling MAX+1, the failure value or UINT64_MAX is INVALID_ARGUMENT, value unchanged, not failed") {
  halo_semaphore_t* semaphore = ctx.semaphore(3);
  for (uint64_t value : {kMax + 1, HALO_SEMAPHORE_FAILURE_VALUE, ~uint64_t{0}}) {
    CTS_ASSERT_STATUS(halo_semaphore_signal(semaphore, value),
                      HALO_STATUS_INVALID_ARGUMENT);
    CTS_ASSERT_EQ(value_of(semaphore), 3u);  // OK: the semaphore did not fail.
  }
}

// --- failure ------------------------------------------------------------------

constexpr char kFailureMessage[] = "cts: injected failure 8d1f";

HALO_CTS_CASE("semaphore.fail.query", kNeedSemaphores,
              "after fail, query returns the failure's code and message and a value >= FAILURE_VALUE") {
  halo_semaphore_t* semaphore = ctx.semaphore(4);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  for (int i = 0; i < 2; ++i) {  // Every query reports it, not just the first.
    uint64_t value = 0;
    CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value),
                       HALO_STATUS_ABORTED, kFailureMessage);
    CTS_ASSERT_MSG(value >= HALO_SEMAPHORE_FAILURE_VALUE, to_text(value));
  }
}

HALO_CTS_CASE("semaphore.fail.wait", kNeedSemaphores,
              "after fail, waits (poll, finite and infinite deadlines) return the failure's code and message") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  CTS_ASSERT_FAILURE(
      halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_PAST),
      HALO_STATUS_DATA_LOSS, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_DATA_LOSS, kFailureMessage);
  CTS_ASSERT_FAILURE(
      halo_semaphore_wait(semaphore, 100, HALO_DEADLINE_INFINITE_FUTURE),
      HALO_STATUS_DATA_LOSS, kFailureMessage);
}

HALO_CTS_CASE("semaphore.fail.signal", kNeedSemaphores,
              "after fail, signal returns the failure's code and message and the semaphore stays failed") {
  halo_semaphore_t* semaphore = ctx.semaphore(2);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_UNAVAILABLE, kFailureMessage)));
  CTS_ASSERT_FAILURE(halo_semaphore_signal(semaphore, 3),
                     HALO_STATUS_UNAVAILABLE, kFailureMessage);
  uint64_t value = 0;
  CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value),
                     HALO_STATUS_UNAVAILABLE, kFailureMessage);
  CTS_ASSERT(value >= HALO_SEMAPHORE_FAILURE_VALUE);
}

HALO_CTS_CASE("semaphore.fail.first_wins", kNeedSemaphores,
              "of two failures with different codes and messages, the first is reported everywhere") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_INTERNAL, "cts: first failure")));
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_CANCELLED, "cts: second failure")));
  uint64_t value = 0;
  CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value),
                     HALO_STATUS_INTERNAL, "cts: first failure");
  CTS_ASSERT_FAILURE(halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_PAST),
                     HALO_STATUS_INTERNAL, "cts: first failure");
  CTS_ASSERT_FAILURE(halo_semaphore_signal(semaphore, 1), HALO_STATUS_INTERNAL,
                     "cts: first failure");
}

HALO_CTS_CASE("semaphore.fail.at_max", kNeedSemaphores,
              "a semaphore at MAX can still fail, and then reports the failure") {
  halo_semaphore_t* semaphore = ctx.semaphore(kMax);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  uint64_t value = 0;
  CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value),
                     HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT(value >= HALO_SEMAPHORE_FAILURE_VALUE);
}

HALO_CTS_CASE("semaphore.fail.status_copies", kNeedSemaphores,
              "each reported failure is the caller's own copy: freeing one leaves the next intact") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  uint64_t value = 0;
  halo_status_t first = halo_semaphore_query(semaphore, &value);
  halo_status_t second = halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_PAST);
  halo_status_free(first);
  CTS_ASSERT_FAILURE(second, HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

// --- single waits -------------------------------------------------------------

HALO_CTS_CASE("semaphore.wait.reached_poll", kNeedSemaphores,
              "a poll (INFINITE_PAST) on a reached value (below or equal, and 0) is OK") {
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  for (uint64_t value : {uint64_t{0}, uint64_t{4}, uint64_t{5}}) {
    CTS_ASSERT_OK(halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_PAST));
  }
}

HALO_CTS_CASE("semaphore.wait.reached_finite", kNeedSemaphores,
              "a wait with a finite deadline on a reached value is OK") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 9));
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, 9, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, 3, deadline_in_ms(1)));
}

HALO_CTS_CASE("semaphore.wait.reached_infinite", kNeedSemaphores,
              "a wait with INFINITE_FUTURE on a reached value returns OK at once") {
  halo_semaphore_t* semaphore = ctx.semaphore(kMax);
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, kMax, HALO_DEADLINE_INFINITE_FUTURE));
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_FUTURE));
}

HALO_CTS_CASE("semaphore.wait.unreached_poll", kNeedSemaphores,
              "a poll on an unreached value is DEADLINE_EXCEEDED and changes nothing") {
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  CTS_ASSERT_STATUS(halo_semaphore_wait(semaphore, 6, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_STATUS(halo_semaphore_wait(semaphore, kMax, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_EQ(value_of(semaphore), 5u);
}

HALO_CTS_CASE("semaphore.wait.unreached_short_deadline", kNeedSemaphores,
              "waits of 1, 5 and 10 ms on an unreached value are DEADLINE_EXCEEDED") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (int64_t milliseconds : {1, 5, 10}) {
    CTS_ASSERT_STATUS(halo_semaphore_wait(semaphore, 1, deadline_in_ms(milliseconds)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
  }
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
}

HALO_CTS_CASE("semaphore.wait.past_deadline_reached", kNeedSemaphores,
              "a deadline already in the past (now - 1 s) with the value reached is OK") {
  halo_semaphore_t* semaphore = ctx.semaphore(2);
  const halo_time_ns_t past = halo_time_now_ns() - 1000000000;
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, 2, past));
}

HALO_CTS_CASE("semaphore.wait.past_deadline_unreached", kNeedSemaphores,
              "a deadline already in the past with the value unreached is DEADLINE_EXCEEDED") {
  halo_semaphore_t* semaphore = ctx.semaphore(2);
  const halo_time_ns_t past = halo_time_now_ns() - 1000000000;
  CTS_ASSERT_STATUS(halo_semaphore_wait(semaphore, 3, past),
                    HALO_STATUS_DEADLINE_EXCEEDED);
}

HALO_CTS_CASE("semaphore.wait.after_signal", kNeedSemaphores,
              "a value becomes waitable (poll) exactly when a signal reaches it") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (uint64_t value = 1; value <= 100; ++value) {
    CTS_ASSERT_STATUS(halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, value));
    CTS_ASSERT_OK(halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_PAST));
  }
}

// --- compatibility ------------------------------------------------------------

HALO_CTS_CASE("semaphore.compatibility.own", kNeedSemaphores,
              "a device's own semaphore is HALO_SEMAPHORE_COMPATIBILITY_ALL") {
  halo_semaphore_compatibility_t compatibility = 0;
  CTS_ASSERT_OK(halo_device_semaphore_compatibility(ctx.device(), ctx.semaphore(0),
                                                    &compatibility));
  CTS_ASSERT_EQ(compatibility,
                static_cast<uint32_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));
}

HALO_CTS_CASE("semaphore.compatibility.second_device", kNeedSemaphores,
              "each of two devices of the plugin offers at least HOST_WAIT|HOST_SIGNAL on the other's semaphore") {
  const uint32_t host = HALO_SEMAPHORE_COMPATIBILITY_HOST_WAIT |
                        HALO_SEMAPHORE_COMPATIBILITY_HOST_SIGNAL;
  halo_semaphore_compatibility_t compatibility = 0;
  CTS_ASSERT_OK(halo_device_semaphore_compatibility(
      ctx.device(), ctx.semaphore(0, ctx.second_device()), &compatibility));
  CTS_ASSERT_EQ(compatibility & host, host);
  compatibility = 0;
  CTS_ASSERT_OK(halo_device_semaphore_compatibility(
      ctx.second_device(), ctx.semaphore(0), &compatibility));
  CTS_ASSERT_EQ(compatibility & host, host);
}

HALO_CTS_CASE("semaphore.compatibility.second_device_usable", kNeedSemaphores,
              "a semaphore of a second device can be host-signalled, queried and waited like the first's") {
  halo_semaphore_t* semaphore = ctx.semaphore(0, ctx.second_device());
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 3));
  CTS_ASSERT_EQ(value_of(semaphore), 3u);
  CTS_ASSERT_OK(halo_semaphore_wait(semaphore, 3, deadline_in_ms(kGenerousMs)));
}

}  // namespace
