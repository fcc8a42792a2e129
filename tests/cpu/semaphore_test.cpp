// The cpu plugin's semaphores against every row of DESIGN.md §4 (create,
// query, signal, fail, wait), with real threads.
#include <atomic>
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"

namespace halo_cpu_test {
namespace {

using SemaphoreTest = CpuTest;

halo_status_t make_error(halo_status_code_t code, const char* message) {
  return halo_status_create(code, message);
}

TEST_F(SemaphoreTest, CreateWithInitialZeroNonZeroAndMax) {
  SemaphorePtr zero = make_semaphore(0);
  SemaphorePtr some = make_semaphore(17);
  SemaphorePtr max = make_semaphore(HALO_SEMAPHORE_MAX_VALUE);
  EXPECT_EQ(query(zero.get()), 0u);
  EXPECT_EQ(query(some.get()), 17u);
  EXPECT_EQ(query(max.get()), HALO_SEMAPHORE_MAX_VALUE);
}

TEST_F(SemaphoreTest, CreateAboveMaxIsRejected) {
  halo_semaphore_t* semaphore = nullptr;
  Status status(halo_semaphore_create(device(), HALO_SEMAPHORE_MAX_VALUE + 1,
                                      HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(semaphore, nullptr);
}

TEST_F(SemaphoreTest, SignalRaisesTheValue) {
  SemaphorePtr semaphore = make_semaphore(0);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
  EXPECT_EQ(query(semaphore.get()), 1u);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1000));
  EXPECT_EQ(query(semaphore.get()), 1000u);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(),
                                       HALO_SEMAPHORE_MAX_VALUE));
  EXPECT_EQ(query(semaphore.get()), HALO_SEMAPHORE_MAX_VALUE);
}

TEST_F(SemaphoreTest, SignalSameOrLowerIsRejectedAndValueUnchanged) {
  SemaphorePtr semaphore = make_semaphore(10);
  Status same(halo_semaphore_signal(semaphore.get(), 10));
  EXPECT_EQ(same.code(), HALO_STATUS_INVALID_ARGUMENT);
  Status lower(halo_semaphore_signal(semaphore.get(), 4));
  EXPECT_EQ(lower.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(query(semaphore.get()), 10u);
}

TEST_F(SemaphoreTest, SignalAboveMaxIsRejected) {
  SemaphorePtr semaphore = make_semaphore(10);
  Status status(
      halo_semaphore_signal(semaphore.get(), HALO_SEMAPHORE_MAX_VALUE + 1));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(query(semaphore.get()), 10u);
}

// Each thread signals its own ascending values; a signal is accepted only
// when it raises the value, so the value never drops even under races, and
// every rejected value was indeed not above the value at that moment.
TEST_F(SemaphoreTest, RacingSignallersNeverLowerTheValue) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr int kThreads = 4;
  constexpr uint64_t kLast = 4000;
  std::atomic<bool> bad_status{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t v = 1 + t; v <= kLast; v += kThreads) {
        Status status(halo_semaphore_signal(semaphore.get(), v));
        if (!status.ok() && status.code() != HALO_STATUS_INVALID_ARGUMENT) {
          bad_status = true;
        }
      }
    });
  }
  uint64_t previous = 0;
  while (previous < kLast) {
    uint64_t now = query(semaphore.get());
    ASSERT_GE(now, previous);
    previous = now;
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(bad_status.load());
  EXPECT_EQ(query(semaphore.get()), kLast);
}

TEST_F(SemaphoreTest, FailedSemaphoreReportsItsStatusEverywhere) {
  SemaphorePtr semaphore = make_semaphore(3);
  HALO_ASSERT_OK(halo_semaphore_fail(
      semaphore.get(), make_error(HALO_STATUS_DATA_LOSS, "disk on fire")));
  uint64_t value = 0;
  Status queried(halo_semaphore_query(semaphore.get(), &value));
  EXPECT_EQ(queried.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(queried.message(), "disk on fire");
  EXPECT_GE(value, HALO_SEMAPHORE_FAILURE_VALUE);
  Status signalled(halo_semaphore_signal(semaphore.get(), 4));
  EXPECT_EQ(signalled.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(signalled.message(), "disk on fire");
  for (halo_time_ns_t deadline :
       {HALO_DEADLINE_INFINITE_PAST, deadline_in_ms(1),
        HALO_DEADLINE_INFINITE_FUTURE}) {
    Status waited(halo_semaphore_wait(semaphore.get(), 1, deadline));
    EXPECT_EQ(waited.code(), HALO_STATUS_DATA_LOSS);
    EXPECT_EQ(waited.message(), "disk on fire");
    Status unreached(halo_semaphore_wait(semaphore.get(), 100, deadline));
    EXPECT_EQ(unreached.code(), HALO_STATUS_DATA_LOSS);
  }
}

TEST_F(SemaphoreTest, FirstFailureWins) {
  SemaphorePtr semaphore = make_semaphore(0);
  HALO_ASSERT_OK(halo_semaphore_fail(semaphore.get(),
                                     make_error(HALO_STATUS_ABORTED, "first")));
  HALO_ASSERT_OK(halo_semaphore_fail(
      semaphore.get(), make_error(HALO_STATUS_INTERNAL, "second")));
  uint64_t value = 0;
  Status status(halo_semaphore_query(semaphore.get(), &value));
  EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
  EXPECT_EQ(status.message(), "first");
}

TEST_F(SemaphoreTest, RacingFailuresAgreeOnOneWinner) {
  for (int iteration = 0; iteration < 50; ++iteration) {
    SemaphorePtr semaphore = make_semaphore(0);
    std::vector<std::thread> threads;
    std::vector<std::string> seen(4);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        std::string message = "failure " + std::to_string(t);
        halo_status_free(halo_semaphore_fail(
            semaphore.get(), make_error(HALO_STATUS_ABORTED, message.c_str())));
        uint64_t value = 0;
        Status status(halo_semaphore_query(semaphore.get(), &value));
        seen[t] = status.message();
      });
    }
    for (auto& thread : threads) thread.join();
    for (const std::string& message : seen) EXPECT_EQ(message, seen[0]);
  }
}

TEST_F(SemaphoreTest, WaitOnReachedValueIsOkForEveryDeadline) {
  SemaphorePtr semaphore = make_semaphore(5);
  for (halo_time_ns_t deadline :
       {HALO_DEADLINE_INFINITE_PAST, deadline_in_ms(1),
        HALO_DEADLINE_INFINITE_FUTURE}) {
    HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 5, deadline));
    HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 0, deadline));
  }
}

TEST_F(SemaphoreTest, PastDeadlineWithValueReachedIsOk) {
  SemaphorePtr semaphore = make_semaphore(5);
  halo_time_ns_t past = halo_time_now_ns() - 1000000000;
  HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 3, past));
  Status unreached(halo_semaphore_wait(semaphore.get(), 6, past));
  EXPECT_EQ(unreached.code(), HALO_STATUS_DEADLINE_EXCEEDED);
}

TEST_F(SemaphoreTest, UnreachedPollAndFiniteWaitExceedTheDeadline) {
  SemaphorePtr semaphore = make_semaphore(0);
  Status polled(halo_semaphore_wait(semaphore.get(), 1,
                                    HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(polled.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  Status timed(halo_semaphore_wait(semaphore.get(), 1, deadline_in_ms(1)));
  EXPECT_EQ(timed.code(), HALO_STATUS_DEADLINE_EXCEEDED);
}

TEST_F(SemaphoreTest, WaitThenSignalFromAnotherThread) {
  SemaphorePtr semaphore = make_semaphore(0);
  std::thread signaller(
      [&] { HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 2)); });
  HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 2,
                                     HALO_DEADLINE_INFINITE_FUTURE));
  signaller.join();
}

TEST_F(SemaphoreTest, FiniteWaitSucceedsWhenSignalledInTime) {
  SemaphorePtr semaphore = make_semaphore(0);
  std::thread signaller(
      [&] { HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1)); });
  // A generous deadline: the assertion is about the result, not the time.
  HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 1, deadline_in_ms(60000)));
  signaller.join();
}

TEST_F(SemaphoreTest, ManyWaitersAllWake) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr int kWaiters = 8;
  std::atomic<int> woken{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&] {
      HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), 1,
                                         HALO_DEADLINE_INFINITE_FUTURE));
      woken.fetch_add(1);
    });
  }
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
  for (auto& waiter : waiters) waiter.join();
  EXPECT_EQ(woken.load(), kWaiters);
}

TEST_F(SemaphoreTest, WaitersOnDifferentValuesWakeWhenTheirsIsReached) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr uint64_t kValues = 8;
  std::vector<std::thread> waiters;
  for (uint64_t v = 1; v <= kValues; ++v) {
    waiters.emplace_back([&, v] {
      HALO_EXPECT_OK(halo_semaphore_wait(semaphore.get(), v,
                                         HALO_DEADLINE_INFINITE_FUTURE));
      // Woken only once the value is there.
      EXPECT_GE(query(semaphore.get()), v);
    });
  }
  for (uint64_t v = 1; v <= kValues; ++v) {
    HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), v));
  }
  for (auto& waiter : waiters) waiter.join();
}

TEST_F(SemaphoreTest, WaitThenFailWakesEveryWaiterWithTheFailure) {
  SemaphorePtr semaphore = make_semaphore(0);
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      Status status(halo_semaphore_wait(semaphore.get(), 1 + i,
                                        HALO_DEADLINE_INFINITE_FUTURE));
      EXPECT_EQ(status.code(), HALO_STATUS_CANCELLED);
      EXPECT_EQ(status.message(), "stopped");
    });
  }
  HALO_EXPECT_OK(halo_semaphore_fail(
      semaphore.get(), make_error(HALO_STATUS_CANCELLED, "stopped")));
  for (auto& waiter : waiters) waiter.join();
}

TEST_F(SemaphoreTest, MonotonicReaderNeverSeesTheValueGoBackwards) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr uint64_t kLast = 20000;
  std::thread signaller([&] {
    for (uint64_t v = 1; v <= kLast; ++v) {
      HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), v));
    }
    HALO_EXPECT_OK(halo_semaphore_fail(
        semaphore.get(), make_error(HALO_STATUS_ABORTED, "end")));
  });
  uint64_t previous = 0;
  while (previous < HALO_SEMAPHORE_FAILURE_VALUE) {
    uint64_t value = 0;
    Status status(halo_semaphore_query(semaphore.get(), &value));
    ASSERT_GE(value, previous);
    ASSERT_EQ(status.ok(), value < HALO_SEMAPHORE_FAILURE_VALUE);
    previous = value;
  }
  signaller.join();
}

TEST_F(SemaphoreTest, SemaphoreOutlivesItsDeviceHandle) {
  DevicePtr other = make_device();
  halo_semaphore_t* raw = nullptr;
  HALO_ASSERT_OK(halo_semaphore_create(other.get(), 0,
                                       HALO_SEMAPHORE_FLAG_NONE, &raw));
  SemaphorePtr semaphore(raw);
  other.reset();  // The semaphore keeps its device alive.
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
  EXPECT_EQ(query(semaphore.get()), 1u);
}

}  // namespace
}  // namespace halo_cpu_test
