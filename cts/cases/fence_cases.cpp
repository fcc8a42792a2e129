// fence.*: libhalo's fences (halo/fence.h, DESIGN.md §4a) over the
// semaphores of the plugin under test: the maximum kept per semaphore, join,
// query, wait and signal, a failure's status kept, queue submissions from
// fences, and their argument errors (wait handles:
// fence_wait_handle_cases.cpp). Nothing sleeps: "not yet" is a poll
// (INFINITE_PAST) and "now" a wait with a generous deadline.
#include "fence_helpers.hpp"

namespace {

using namespace halo::cts;
using namespace halo::cts::fence;

// --- the set of timepoints ------------------------------------------------------

HALO_CTS_CASE("fence.empty", kNeedNothing,
              "a new fence has no timepoints and is reached: query true, wait and signal OK, its wait handle readable and ready at once") {
  FenceRef fence = make_fence();
  CTS_ASSERT_EQ(count_of(fence.get()), 0u);
  CTS_ASSERT_REACHED(fence.get(), true);
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_FUTURE));
  CTS_ASSERT_OK(halo_fence_signal(fence.get()));
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT(readable(handle.get(), 0));  // "At once": before create returns.
  CTS_ASSERT_READY(handle.get(), true);
}

HALO_CTS_CASE("fence.retain", kNeedSemaphores,
              "a fence is an object of type FENCE, and a reference from halo_fence_retain keeps it usable after the creator's release") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  FenceRef fence = make_fence({{semaphore, 1}});
  CTS_ASSERT_EQ(static_cast<int>(halo_object_type(as<halo_object_t>(fence.get()))),
                static_cast<int>(HALO_OBJECT_TYPE_FENCE));
  halo_fence_retain(fence.get());
  FenceRef second(fence.get());  // Owns the reference retain added.
  fence.reset();
  CTS_ASSERT_OK(halo_fence_insert(second.get(), semaphore, 2));
  CTS_ASSERT_TIMEPOINTS(second.get(), {semaphore, 2});
}

HALO_CTS_CASE("fence.insert_keeps_maximum", kNeedSemaphores,
              "inserting (s,3), (s,1), (s,5), (t,2), (s,5) holds s at 5 and t at 2 in insertion order, and the fence waits for s to reach 5") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 3}, {s, 1}, {s, 5}, {t, 2}, {s, 5}});
  CTS_ASSERT_TIMEPOINTS(fence.get(), {s, 5}, {t, 2});
  // A short copy counts every timepoint; a long one writes only count slots
  // (the third keeps its marker, t and 77).
  halo_semaphore_t* semaphores[3] = {nullptr, nullptr, t};
  uint64_t values[3] = {0, 0, 77};
  size_t count = 0;
  CTS_ASSERT_OK(halo_fence_timepoints(fence.get(), 1, semaphores, values, &count));
  CTS_ASSERT_EQ(count, 2u);
  CTS_ASSERT(semaphores[0] == s && semaphores[1] == nullptr);
  CTS_ASSERT_EQ(values[0], 5u);
  CTS_ASSERT_OK(halo_fence_timepoints(fence.get(), 3, semaphores, values, &count));
  CTS_ASSERT_EQ(count, 2u);
  CTS_ASSERT(semaphores[1] == t && semaphores[2] == t);
  CTS_ASSERT_EQ(values[2], 77u);
  CTS_ASSERT_OK(halo_semaphore_signal(t, 2));
  CTS_ASSERT_OK(halo_semaphore_signal(s, 4));
  CTS_ASSERT_REACHED(fence.get(), false);
  CTS_ASSERT_OK(halo_semaphore_signal(s, 5));
  CTS_ASSERT_REACHED(fence.get(), true);
}

HALO_CTS_CASE("fence.join.union_and_maximum", kNeedSemaphores,
              "join adds the source's timepoints (the larger value per semaphore, new ones after) and leaves the source as it was; joining itself or an empty fence changes nothing") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  halo_semaphore_t* u = ctx.semaphore(0);
  FenceRef a = make_fence({{s, 3}, {t, 1}});
  FenceRef b = make_fence({{u, 2}, {s, 5}});
  CTS_ASSERT_OK(halo_fence_join(a.get(), b.get()));
  CTS_ASSERT_TIMEPOINTS(a.get(), {s, 5}, {t, 1}, {u, 2});
  CTS_ASSERT_TIMEPOINTS(b.get(), {u, 2}, {s, 5});
  FenceRef smaller = make_fence({{s, 1}});
  FenceRef empty = make_fence();
  CTS_ASSERT_OK(halo_fence_join(a.get(), smaller.get()));
  CTS_ASSERT_OK(halo_fence_join(a.get(), a.get()));
  CTS_ASSERT_OK(halo_fence_join(a.get(), empty.get()));
  CTS_ASSERT_TIMEPOINTS(a.get(), {s, 5}, {t, 1}, {u, 2});
  CTS_ASSERT_OK(halo_fence_join(empty.get(), a.get()));
  CTS_ASSERT_TIMEPOINTS(empty.get(), {s, 5}, {t, 1}, {u, 2});
}

HALO_CTS_CASE("fence.join.crosswise_threads", kNeedSemaphores,
              "two threads joining a into b and b into a 1,000 times each neither deadlock nor fail, and both end with the union") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef a = make_fence({{s, 1}});
  FenceRef b = make_fence({{t, 2}});
  std::string errors[2];
  {
    ThreadGroup threads;
    for (int side = 0; side < 2; ++side) {
      halo_fence_t* into = side == 0 ? a.get() : b.get();
      halo_fence_t* from = side == 0 ? b.get() : a.get();
      threads.start([into, from, &error = errors[side]] {
        for (int i = 0; i < 1000 && error.empty(); ++i) {
          halo_status_t status = halo_fence_join(into, from);
          if (status != nullptr) error = take_status_text(status);
        }
      });
    }
  }
  CTS_ASSERT_MSG(errors[0].empty() && errors[1].empty(), errors[0] + errors[1]);
  CTS_ASSERT_TIMEPOINTS(a.get(), {s, 1}, {t, 2});
  CTS_ASSERT_TIMEPOINTS(b.get(), {t, 2}, {s, 1});
}

HALO_CTS_CASE("fence.holds_semaphores", kNeedSemaphores,
              "a fence keeps its semaphore alive after the caller releases it: listed, queried, signalled and waited on through the fence") {
  SemaphoreRef semaphore = new_semaphore(ctx);
  halo_semaphore_t* borrowed = semaphore.get();
  FenceRef fence = make_fence({{borrowed, 4}});
  semaphore.reset();  // The fence holds the only reference now.
  CTS_ASSERT_TIMEPOINTS(fence.get(), {borrowed, 4});
  CTS_ASSERT_REACHED(fence.get(), false);
  CTS_ASSERT_OK(halo_fence_signal(fence.get()));
  CTS_ASSERT_EQ(value_of(borrowed), 4u);
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST));
}

// --- query, wait, signal and failure ---------------------------------------------

HALO_CTS_CASE("fence.query_and_wait", kNeedSemaphores,
              "query is false and a poll or 5 ms wait DEADLINE_EXCEEDED until every semaphore reaches its value; then query true and waits OK") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 2}, {t, 1}});
  for (uint64_t step = 0; step < 2; ++step) {
    CTS_ASSERT_REACHED(fence.get(), false);
    CTS_ASSERT_STATUS(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_STATUS(halo_fence_wait(fence.get(), deadline_in_ms(5)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT_OK(halo_semaphore_signal(s, 1 + step));  // s short, then reached.
  }
  CTS_ASSERT_REACHED(fence.get(), false);  // t is still at 0.
  CTS_ASSERT_OK(halo_semaphore_signal(t, 1));
  CTS_ASSERT_REACHED(fence.get(), true);
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_FUTURE));
}

HALO_CTS_CASE("fence.wait_wakes", kNeedSemaphores,
              "a thread blocked in halo_fence_wait wakes with OK when the host signals the fence's last semaphore") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}, {t, 3}});
  std::atomic<bool> started{false};
  halo_status_t result = nullptr;
  {
    ThreadGroup threads;
    threads.start([&] {
      started.store(true);
      result = halo_fence_wait(fence.get(), deadline_in_ms(kGenerousMs));
    });
    CTS_ASSERT(spin_until([&] { return started.load(); }));
    CTS_ASSERT_OK(halo_semaphore_signal(s, 1));
    CTS_ASSERT_OK(halo_semaphore_signal(t, 3));
  }
  CTS_ASSERT_OK(result);
}

HALO_CTS_CASE("fence.failure_keeps_status", kNeedSemaphores,
              "a failed member makes query and waits return its code and message; with two failed, query reports the first in insertion order") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  halo_semaphore_t* u = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}, {t, 1}, {u, 1}});
  CTS_ASSERT_OK(halo_semaphore_signal(s, 1));
  CTS_ASSERT_OK(halo_semaphore_fail(u, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT_QUERY_FAILS(fence.get(), HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST),
                     HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_fence_wait(fence.get(), deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_FUTURE),
                     HALO_STATUS_ABORTED, kFailureMessage);
  // t failed later but was inserted before u.
  CTS_ASSERT_OK(halo_semaphore_fail(t, make_status(HALO_STATUS_DATA_LOSS, kEarlierMessage)));
  CTS_ASSERT_QUERY_FAILS(fence.get(), HALO_STATUS_DATA_LOSS, kEarlierMessage);
}

HALO_CTS_CASE("fence.signal.to_values", kNeedSemaphores,
              "halo_fence_signal brings each semaphore below its value to it and leaves those at or past it unchanged; a second signal changes nothing") {
  halo_semaphore_t* below = ctx.semaphore(1);
  halo_semaphore_t* past = ctx.semaphore(7);
  halo_semaphore_t* at = ctx.semaphore(2);
  FenceRef fence = make_fence({{below, 3}, {past, 5}, {at, 2}});
  for (int round = 0; round < 2; ++round) {
    CTS_ASSERT_OK(halo_fence_signal(fence.get()));
    CTS_ASSERT_EQ(value_of(below), 3u);
    CTS_ASSERT_EQ(value_of(past), 7u);
    CTS_ASSERT_EQ(value_of(at), 2u);
    CTS_ASSERT_REACHED(fence.get(), true);
  }
}

HALO_CTS_CASE("fence.signal.failed_member", kNeedSemaphores,
              "halo_fence_signal on a fence with a failed member between two others returns the failure's code and message and still signals both others") {
  halo_semaphore_t* first = ctx.semaphore(0);
  halo_semaphore_t* failed = ctx.semaphore(0);
  halo_semaphore_t* last = ctx.semaphore(0);
  FenceRef fence = make_fence({{first, 1}, {failed, 1}, {last, 1}});
  CTS_ASSERT_OK(halo_semaphore_fail(failed, make_status(HALO_STATUS_UNAVAILABLE, kFailureMessage)));
  CTS_ASSERT_FAILURE(halo_fence_signal(fence.get()), HALO_STATUS_UNAVAILABLE, kFailureMessage);
  CTS_ASSERT_EQ(value_of(first), 1u);
  CTS_ASSERT_EQ(value_of(last), 1u);
}

// --- queue submissions from fences ------------------------------------------------

HALO_CTS_CASE("fence.execute.gated", kNeedQueues,
              "queue_execute_fences with a wait fence over a closed gate and a signal fence over two semaphores: nothing signalled before the gate opens, both after") {
  Gate gate(ctx.device());
  halo_semaphore_t* a = ctx.semaphore(0);
  halo_semaphore_t* b = ctx.semaphore(0);
  FenceRef waits = make_fence({{gate.get(), 1}});
  FenceRef signals = make_fence({{a, 2}, {b, 3}});
  CTS_ASSERT_OK(execute_fences(ctx.device(), waits.get(), signals.get()));
  waits.reset();  // The submission took the lists at the call.
  CTS_ASSERT_REACHED(signals.get(), false);
  CTS_ASSERT_EQ(value_of(a), 0u);
  CTS_ASSERT_EQ(value_of(b), 0u);
  gate.open();
  CTS_ASSERT_OK(halo_fence_wait(signals.get(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(a), 2u);
  CTS_ASSERT_EQ(value_of(b), 3u);
}

HALO_CTS_CASE("fence.execute.null_fences", kNeedQueues,
              "queue_execute_fences takes a NULL or empty fence as an empty list: a barrier with neither, a signal with no wait, a gated wait with no signal") {
  FenceRef empty = make_fence();
  CTS_ASSERT_OK(execute_fences(ctx.device(), nullptr, nullptr));
  CTS_ASSERT_OK(execute_fences(ctx.device(), empty.get(), empty.get()));
  halo_semaphore_t* out = ctx.semaphore(0);
  FenceRef signals = make_fence({{out, 1}});
  CTS_ASSERT_OK(execute_fences(ctx.device(), nullptr, signals.get()));
  CTS_ASSERT_OK(halo_fence_wait(signals.get(), deadline_in_ms(kGenerousMs)));
  Gate gate(ctx.device());
  FenceRef waits = make_fence({{gate.get(), 1}});
  CTS_ASSERT_OK(execute_fences(ctx.device(), waits.get(), nullptr));
  gate.open();
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("fence.execute.failure", kNeedQueues,
              "a failed gate in the wait fence fails every semaphore of the signal fence: its query and wait return the gate's code and message") {
  Gate gate(ctx.device());
  halo_semaphore_t* a = ctx.semaphore(0);
  halo_semaphore_t* b = ctx.semaphore(0);
  FenceRef waits = make_fence({{gate.get(), 1}});
  FenceRef signals = make_fence({{a, 1}, {b, 1}});
  CTS_ASSERT_OK(execute_fences(ctx.device(), waits.get(), signals.get()));
  gate.fail(HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_fence_wait(signals.get(), deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_QUERY_FAILS(signals.get(), HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_semaphore_wait(b, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

// --- errors -----------------------------------------------------------------------

HALO_CTS_CASE("fence.errors.null_handle", kNeedNothing,
              "every fence and wait handle function with a NULL fence, source, semaphore or handle is INVALID_ARGUMENT; halo_wait_handle_fd(NULL) is -1; retain, release and destroy accept NULL") {
  constexpr halo_status_code_t kInvalid = HALO_STATUS_INVALID_ARGUMENT;
  FenceRef fence = make_fence();
  size_t count = 0;
  bool flag = false;
  halo_wait_handle_t* handle = nullptr;
  CTS_ASSERT_STATUS(halo_fence_insert(nullptr, nullptr, 1), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_insert(fence.get(), nullptr, 1), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_join(nullptr, fence.get()), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_join(fence.get(), nullptr), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(nullptr, 0, nullptr, nullptr, &count), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_query(nullptr, &flag), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_wait(nullptr, HALO_DEADLINE_INFINITE_PAST), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_signal(nullptr), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_create_wait_handle(nullptr, &handle), kInvalid);
  CTS_ASSERT_STATUS(halo_wait_handle_status(nullptr, &flag), kInvalid);
  CTS_ASSERT_EQ(halo_wait_handle_fd(nullptr), -1);
  halo_fence_retain(nullptr);
  halo_fence_release(nullptr);
  halo_wait_handle_destroy(nullptr);
  CTS_ASSERT_EQ(count_of(fence.get()), 0u);
}

HALO_CTS_CASE("fence.errors.wrong_type", kNeedSemaphores,
              "a semaphore given as a fence (or as a join source), and a fence or device given as a semaphore, are INVALID_ARGUMENT; neither object changes") {
  constexpr halo_status_code_t kInvalid = HALO_STATUS_INVALID_ARGUMENT;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  halo_fence_t* not_fence = as<halo_fence_t>(semaphore);
  FenceRef fence = make_fence();
  size_t count = 0;
  bool flag = false;
  halo_wait_handle_t* handle = nullptr;
  CTS_ASSERT_STATUS(halo_fence_insert(not_fence, semaphore, 1), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_insert(fence.get(), as<halo_semaphore_t>(fence.get()), 1),
                    kInvalid);
  CTS_ASSERT_STATUS(halo_fence_insert(fence.get(), as<halo_semaphore_t>(ctx.device()), 1),
                    kInvalid);
  CTS_ASSERT_STATUS(halo_fence_join(not_fence, fence.get()), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_join(fence.get(), not_fence), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(not_fence, 0, nullptr, nullptr, &count), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_query(not_fence, &flag), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_wait(not_fence, HALO_DEADLINE_INFINITE_PAST), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_signal(not_fence), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_create_wait_handle(not_fence, &handle), kInvalid);
  CTS_ASSERT_EQ(count_of(fence.get()), 0u);
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1));  // Still a working semaphore.
}

HALO_CTS_CASE("fence.errors.bad_arguments", kNeedSemaphores,
              "NULL out pointers, a value above MAX and NULL arrays with a non-zero capacity are INVALID_ARGUMENT and leave the fence as it was") {
  constexpr halo_status_code_t kInvalid = HALO_STATUS_INVALID_ARGUMENT;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  FenceRef fence = make_fence({{semaphore, HALO_SEMAPHORE_MAX_VALUE}});
  halo_semaphore_t* semaphores[1] = {};
  uint64_t values[1] = {};
  size_t count = 0;
  CTS_ASSERT_STATUS(halo_fence_create(nullptr), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_insert(fence.get(), ctx.semaphore(0), HALO_SEMAPHORE_MAX_VALUE + 1),
                    kInvalid);
  CTS_ASSERT_STATUS(halo_fence_insert(fence.get(), semaphore, UINT64_MAX), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(fence.get(), 0, nullptr, nullptr, nullptr), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(fence.get(), 1, nullptr, nullptr, &count), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(fence.get(), 1, semaphores, nullptr, &count), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_timepoints(fence.get(), 1, nullptr, values, &count), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_query(fence.get(), nullptr), kInvalid);
  CTS_ASSERT_STATUS(halo_fence_create_wait_handle(fence.get(), nullptr), kInvalid);
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT_STATUS(halo_wait_handle_status(handle.get(), nullptr), kInvalid);
  CTS_ASSERT_TIMEPOINTS(fence.get(), {semaphore, HALO_SEMAPHORE_MAX_VALUE});
}

HALO_CTS_CASE("fence.errors.execute", kNeedQueues,
              "queue_execute_fences with a semaphore as either fence, a NULL device, or a signal value at the payload is INVALID_ARGUMENT; nothing is signalled") {
  constexpr halo_status_code_t kInvalid = HALO_STATUS_INVALID_ARGUMENT;
  halo_semaphore_t* out = ctx.semaphore(0);
  halo_semaphore_t* at = ctx.semaphore(2);
  FenceRef signals = make_fence({{out, 1}});
  halo_fence_t* not_fence = as<halo_fence_t>(out);
  CTS_ASSERT_STATUS(execute_fences(ctx.device(), not_fence, signals.get()), kInvalid);
  CTS_ASSERT_STATUS(execute_fences(ctx.device(), nullptr, not_fence), kInvalid);
  CTS_ASSERT_STATUS(execute_fences(nullptr, nullptr, signals.get()), kInvalid);
  CTS_ASSERT_OK(halo_fence_insert(signals.get(), at, 2));  // A signal at the payload.
  CTS_ASSERT_STATUS(execute_fences(ctx.device(), nullptr, signals.get()), kInvalid);
  CTS_ASSERT_EQ(value_of(out), 0u);
  CTS_ASSERT_EQ(value_of(at), 2u);
}

}  // namespace
