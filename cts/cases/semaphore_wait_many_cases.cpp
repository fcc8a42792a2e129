// semaphore.wait_many.*: halo_semaphores_wait over lists of (semaphore, value)
// pairs, ALL and ANY, on one device and across two devices of the plugin
// (DESIGN.md §4). Everything here runs on one thread: a wait that must block
// is a poll or a short deadline, and a wait that may block has a reached
// value.
#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

// A list of semaphores and the values waited for.
struct WaitList {
  std::vector<halo_semaphore_t*> semaphores;
  std::vector<uint64_t> values;

  void add(halo_semaphore_t* semaphore, uint64_t value) {
    semaphores.push_back(semaphore);
    values.push_back(value);
  }
  halo_status_t wait(halo_wait_mode_t mode, halo_time_ns_t deadline) const {
    return halo_semaphores_wait(mode, semaphores.size(), semaphores.data(),
                                values.data(), deadline);
  }
};

// |count| semaphores at value 3, each waited for at |value|.
WaitList uniform_list(Context& ctx, size_t count, uint64_t value) {
  WaitList list;
  for (size_t i = 0; i < count; ++i) list.add(ctx.semaphore(3), value);
  return list;
}

// Alternates semaphores of the device under test and of a second device.
WaitList two_device_list(Context& ctx, size_t count, uint64_t initial,
                         uint64_t value) {
  WaitList list;
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = i % 2 == 0 ? ctx.device() : ctx.second_device();
    list.add(ctx.semaphore(initial, device), value);
  }
  return list;
}

constexpr size_t kCounts[] = {1, 2, 100};

constexpr char kFailureMessage[] = "cts: wait-list failure 51ac";

// --- empty lists ----------------------------------------------------------------

HALO_CTS_CASE("semaphore.wait_many.empty_all", kNeedSemaphores,
              "an empty ALL wait (count 0, NULL arrays) is OK at once, even with an infinite deadline") {
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 0, nullptr, nullptr,
                                     HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 0, nullptr, nullptr,
                                     HALO_DEADLINE_INFINITE_FUTURE));
}

HALO_CTS_CASE("semaphore.wait_many.empty_any", kNeedSemaphores,
              "an empty ANY wait (count 0, NULL arrays) is OK at once, even with an infinite deadline") {
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 0, nullptr, nullptr,
                                     HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 0, nullptr, nullptr,
                                     HALO_DEADLINE_INFINITE_FUTURE));
}

// --- reached and unreached lists of 1, 2 and 100 --------------------------------

HALO_CTS_CASE("semaphore.wait_many.all_reached", kNeedSemaphores,
              "ALL over 1, 2 and 100 reached semaphores is OK with a poll, a finite and an infinite deadline") {
  for (size_t count : kCounts) {
    WaitList list = uniform_list(ctx, count, 3);
    list.values[count / 2] = 1;  // Below the value counts as reached too.
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_FUTURE));
  }
}

HALO_CTS_CASE("semaphore.wait_many.all_unreached", kNeedSemaphores,
              "ALL over 1, 2 and 100 unreached semaphores is DEADLINE_EXCEEDED with a poll and a 5 ms deadline") {
  for (size_t count : kCounts) {
    WaitList list = uniform_list(ctx, count, 4);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
  }
}

HALO_CTS_CASE("semaphore.wait_many.any_reached", kNeedSemaphores,
              "ANY over 1, 2 and 100 reached semaphores is OK with a poll, a finite and an infinite deadline") {
  for (size_t count : kCounts) {
    WaitList list = uniform_list(ctx, count, 2);
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_FUTURE));
  }
}

HALO_CTS_CASE("semaphore.wait_many.any_unreached", kNeedSemaphores,
              "ANY over 1, 2 and 100 unreached semaphores is DEADLINE_EXCEEDED with a poll and a 5 ms deadline") {
  for (size_t count : kCounts) {
    WaitList list = uniform_list(ctx, count, 4);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
  }
}

// --- one differs ----------------------------------------------------------------

HALO_CTS_CASE("semaphore.wait_many.any_one_signaled", kNeedSemaphores,
              "ANY with one signalled semaphore among unsignalled ones is OK, even with an infinite deadline") {
  for (size_t count : kCounts) {
    for (size_t reached : {size_t{0}, count / 2, count - 1}) {
      WaitList list = uniform_list(ctx, count, 4);
      CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[reached], 4));
      CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST));
      CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_FUTURE));
    }
  }
}

HALO_CTS_CASE("semaphore.wait_many.all_one_short", kNeedSemaphores,
              "ALL with every semaphore reached but one is DEADLINE_EXCEEDED with a poll and a 5 ms deadline") {
  for (size_t count : {size_t{2}, size_t{100}}) {
    for (size_t short_one : {size_t{0}, count / 2, count - 1}) {
      WaitList list = uniform_list(ctx, count, 3);
      list.values[short_one] = 4;
      CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                        HALO_STATUS_DEADLINE_EXCEEDED);
      CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(5)),
                        HALO_STATUS_DEADLINE_EXCEEDED);
      // Reaching the last one completes the wait.
      CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[short_one], 4));
      CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_FUTURE));
    }
  }
}

HALO_CTS_CASE("semaphore.wait_many.same_semaphore_twice", kNeedSemaphores,
              "one semaphore listed twice with values 1 and 2: at 1, ANY is OK and ALL is DEADLINE_EXCEEDED") {
  halo_semaphore_t* semaphore = ctx.semaphore(1);
  WaitList list;
  list.add(semaphore, 1);
  list.add(semaphore, 2);
  CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 2));
  CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(kGenerousMs)));
}

// --- failures -------------------------------------------------------------------

HALO_CTS_CASE("semaphore.wait_many.all_failed", kNeedSemaphores,
              "ALL over reached semaphores and one failed returns the failure's code and message") {
  for (size_t count : {size_t{2}, size_t{100}}) {
    WaitList list = uniform_list(ctx, count, 3);
    CTS_ASSERT_OK(halo_semaphore_fail(
        list.semaphores[count - 1],
        make_status(HALO_STATUS_ABORTED, kFailureMessage)));
    CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                       HALO_STATUS_ABORTED, kFailureMessage);
    CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(kGenerousMs)),
                       HALO_STATUS_ABORTED, kFailureMessage);
  }
}

HALO_CTS_CASE("semaphore.wait_many.all_failed_among_unreached", kNeedSemaphores,
              "ALL over unreached semaphores and one failed returns the failure, not DEADLINE_EXCEEDED") {
  WaitList list = uniform_list(ctx, 10, 4);
  CTS_ASSERT_OK(halo_semaphore_fail(
      list.semaphores[0], make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                     HALO_STATUS_DATA_LOSS, kFailureMessage);
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_DATA_LOSS, kFailureMessage);
}

HALO_CTS_CASE("semaphore.wait_many.any_failed", kNeedSemaphores,
              "ANY over unreached semaphores and one failed returns the failure's code and message") {
  for (size_t count : {size_t{1}, size_t{2}, size_t{100}}) {
    WaitList list = uniform_list(ctx, count, 4);
    CTS_ASSERT_OK(halo_semaphore_fail(
        list.semaphores[count / 2],
        make_status(HALO_STATUS_UNAVAILABLE, kFailureMessage)));
    CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST),
                       HALO_STATUS_UNAVAILABLE, kFailureMessage);
    CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(kGenerousMs)),
                       HALO_STATUS_UNAVAILABLE, kFailureMessage);
  }
}

// A failure comes first (DESIGN.md §4): ANY finds a reached pair and a
// failed semaphore in one look and returns the failure, wherever in the list
// each of them is.

// Asserts that an ANY wait over |list| returns the failure, as a poll and
// with a finite and an infinite deadline.
void check_any_fails(const WaitList& list, halo_status_code_t code) {
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST), code,
                     kFailureMessage);
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(kGenerousMs)), code,
                     kFailureMessage);
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_FUTURE), code,
                     kFailureMessage);
}

HALO_CTS_CASE("semaphore.wait_many.any_reached_and_failed", kNeedSemaphores,
              "ANY over one reached and one failed semaphore among unreached ones returns the failure, either of them first: poll, finite and infinite deadline") {
  for (size_t count : {size_t{2}, size_t{3}, size_t{100}}) {
    for (bool failed_first : {true, false}) {
      WaitList list = uniform_list(ctx, count, 4);
      const size_t reached = failed_first ? count - 1 : 0;
      const size_t failed = failed_first ? 0 : count - 1;
      CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[reached], 4));
      CTS_ASSERT_OK(halo_semaphore_fail(list.semaphores[failed],
                                        make_status(HALO_STATUS_ABORTED, kFailureMessage)));
      check_any_fails(list, HALO_STATUS_ABORTED);
    }
  }
}

HALO_CTS_CASE("semaphore.wait_many.any_failed_among_reached", kNeedSemaphores,
              "ANY over reached semaphores and one failed (first, middle or last; one device or two) returns the failure") {
  for (bool two_devices : {false, true}) {
    for (size_t count : {size_t{2}, size_t{5}, size_t{100}}) {
      for (size_t failed : {size_t{0}, count / 2, count - 1}) {
        WaitList list = two_devices ? two_device_list(ctx, count, 3, 2)
                                    : uniform_list(ctx, count, 2);
        CTS_ASSERT_OK(halo_semaphore_fail(
            list.semaphores[failed], make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
        check_any_fails(list, HALO_STATUS_DATA_LOSS);
      }
    }
  }
}

// --- two devices of the plugin ---------------------------------------------------

HALO_CTS_CASE("semaphore.wait_many.two_devices_all", kNeedSemaphores,
              "ALL mixing semaphores of two devices: DEADLINE_EXCEEDED while one is short, OK once all are reached") {
  for (size_t count : {size_t{2}, size_t{100}}) {
    WaitList list = two_device_list(ctx, count, 0, 1);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    for (size_t i = 0; i + 1 < count; ++i) {
      CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[i], 1));
    }
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[count - 1], 1));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_FUTURE));
  }
}

HALO_CTS_CASE("semaphore.wait_many.two_devices_any", kNeedSemaphores,
              "ANY mixing semaphores of two devices: DEADLINE_EXCEEDED while none is reached, OK once one of either device is") {
  for (size_t reached : {size_t{0}, size_t{1}}) {  // First or second device.
    WaitList list = two_device_list(ctx, 10, 0, 1);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[reached + 4], 1));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_PAST));
    CTS_ASSERT_OK(list.wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_FUTURE));
  }
}

HALO_CTS_CASE("semaphore.wait_many.two_devices_failed", kNeedSemaphores,
              "a failed semaphore of the second device fails ALL and ANY waits mixing both devices") {
  WaitList list = two_device_list(ctx, 4, 0, 1);
  CTS_ASSERT_OK(halo_semaphore_signal(list.semaphores[0], 1));
  CTS_ASSERT_OK(halo_semaphore_fail(
      list.semaphores[3], make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ALL, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
  list.semaphores.erase(list.semaphores.begin());  // Drop the reached one.
  list.values.erase(list.values.begin());
  CTS_ASSERT_FAILURE(list.wait(HALO_WAIT_MODE_ANY, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

}  // namespace
