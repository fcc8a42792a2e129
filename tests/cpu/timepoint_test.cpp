// Timepoints (asynchronous notification) of the cpu plugin's semaphores.
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"

namespace halo_cpu_test {
namespace {

using TimepointTest = CpuTest;

// Counts callbacks and keeps the last status code and message.
struct Probe {
  std::atomic<int> calls{0};
  std::atomic<halo_status_code_t> code{HALO_STATUS_OK};
  // Callbacks of one probe may run on several threads at once.
  std::mutex mutex;
  std::string message;

  std::string last_message() {
    std::lock_guard<std::mutex> lock(mutex);
    return message;
  }

  static void callback(void* user_data, halo_timepoint_t*,
                       halo_status_t status) {
    auto* probe = static_cast<Probe*>(user_data);
    probe->code = halo_status_code(status);
    {
      std::lock_guard<std::mutex> lock(probe->mutex);
      probe->message = halo_status_message(status);
    }
    halo_status_free(status);
    probe->calls.fetch_add(1, std::memory_order_release);
  }
};

halo_timepoint_t make_timepoint(uint64_t value, Probe* probe) {
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = value;
  timepoint.callback = &Probe::callback;
  timepoint.user_data = probe;
  return timepoint;
}

bool cancel(halo_semaphore_t* semaphore, halo_timepoint_t* timepoint) {
  bool cancelled = false;
  HALO_EXPECT_OK(
      halo_semaphore_cancel_timepoint(semaphore, timepoint, &cancelled));
  return cancelled;
}

TEST_F(TimepointTest, RunsExactlyOnceWhenReached) {
  SemaphorePtr semaphore = make_semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(2, &probe);
  HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
  EXPECT_EQ(probe.calls.load(), 0);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 2));
  EXPECT_EQ(probe.calls.load(), 1);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 3));
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_EQ(probe.code.load(), HALO_STATUS_OK);
  EXPECT_FALSE(cancel(semaphore.get(), &timepoint));
}

TEST_F(TimepointTest, RunsInlineWhenAlreadyReached) {
  SemaphorePtr semaphore = make_semaphore(4);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(4, &probe);
  HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_FALSE(cancel(semaphore.get(), &timepoint));
}

TEST_F(TimepointTest, RunsWithTheFailure) {
  SemaphorePtr semaphore = make_semaphore(0);
  Probe pending;
  halo_timepoint_t timepoint = make_timepoint(1, &pending);
  HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
  HALO_EXPECT_OK(halo_semaphore_fail(
      semaphore.get(), halo_status_create(HALO_STATUS_UNAVAILABLE, "gone")));
  EXPECT_EQ(pending.calls.load(), 1);
  EXPECT_EQ(pending.code.load(), HALO_STATUS_UNAVAILABLE);
  EXPECT_EQ(pending.last_message(), "gone");
  // Registered on an already failed semaphore: inline, with the failure.
  Probe late;
  halo_timepoint_t late_timepoint = make_timepoint(1, &late);
  HALO_ASSERT_OK(
      halo_semaphore_acquire_timepoint(semaphore.get(), &late_timepoint));
  EXPECT_EQ(late.calls.load(), 1);
  EXPECT_EQ(late.code.load(), HALO_STATUS_UNAVAILABLE);
}

TEST_F(TimepointTest, CancelBeforeSignalMeansNeverCalled) {
  SemaphorePtr semaphore = make_semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(1, &probe);
  HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
  EXPECT_TRUE(cancel(semaphore.get(), &timepoint));
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
  EXPECT_EQ(probe.calls.load(), 0);
}

// After cancel returns, the callback has run to completion or never will:
// the count observed right at return is final.
TEST_F(TimepointTest, CancelRacingSignalIsExactlyOnceOrNever) {
  constexpr int kIterations = 500;
  int cancelled_count = 0;
  for (int i = 0; i < kIterations; ++i) {
    SemaphorePtr semaphore = make_semaphore(0);
    Probe probe;
    halo_timepoint_t timepoint = make_timepoint(1, &probe);
    HALO_ASSERT_OK(
        halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
    std::thread signaller(
        [&] { HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1)); });
    bool cancelled = cancel(semaphore.get(), &timepoint);
    int calls_at_return = probe.calls.load(std::memory_order_acquire);
    signaller.join();
    ASSERT_EQ(calls_at_return, cancelled ? 0 : 1) << "iteration " << i;
    ASSERT_EQ(probe.calls.load(), cancelled ? 0 : 1) << "iteration " << i;
    cancelled_count += cancelled ? 1 : 0;
  }
  RecordProperty("cancelled", cancelled_count);
}

TEST_F(TimepointTest, TenThousandTimepointsOnOneSemaphore) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr int kCount = 10000;
  Probe probe;
  std::vector<halo_timepoint_t> timepoints(kCount);
  for (int i = 0; i < kCount; ++i) {
    // Interleave values so insertion is not always at the tail.
    timepoints[i] = make_timepoint(1 + (i * 7919) % kCount, &probe);
    HALO_ASSERT_OK(
        halo_semaphore_acquire_timepoint(semaphore.get(), &timepoints[i]));
  }
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), kCount / 2));
  EXPECT_EQ(probe.calls.load(), kCount / 2);
  HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), kCount));
  EXPECT_EQ(probe.calls.load(), kCount);
}

TEST_F(TimepointTest, CallbackMayFreeItsTimepoint) {
  SemaphorePtr semaphore = make_semaphore(0);
  std::atomic<int> calls{0};
  auto callback = [](void* user_data, halo_timepoint_t* timepoint,
                     halo_status_t status) {
    halo_status_free(status);
    delete timepoint;
    static_cast<std::atomic<int>*>(user_data)->fetch_add(1);
  };
  for (int i = 0; i < 64; ++i) {
    auto* timepoint = new halo_timepoint_t{};
    timepoint->struct_size = sizeof(halo_timepoint_t);
    timepoint->value = 1 + i % 4;
    timepoint->callback = callback;
    timepoint->user_data = &calls;
    HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(), timepoint));
  }
  std::thread signaller(
      [&] { HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 4)); });
  signaller.join();
  EXPECT_EQ(calls.load(), 64);
}

TEST_F(TimepointTest, ConcurrentRegistrationWhileSignalling) {
  SemaphorePtr semaphore = make_semaphore(0);
  constexpr int kPerThread = 300;
  Probe probe;
  std::vector<halo_timepoint_t> timepoints(2 * kPerThread);
  std::vector<std::thread> registrars;
  for (int t = 0; t < 2; ++t) {
    registrars.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        halo_timepoint_t& timepoint = timepoints[t * kPerThread + i];
        timepoint = make_timepoint(1 + i, &probe);
        HALO_EXPECT_OK(
            halo_semaphore_acquire_timepoint(semaphore.get(), &timepoint));
      }
    });
  }
  for (uint64_t v = 1; v <= kPerThread; ++v) {
    HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), v));
  }
  for (auto& registrar : registrars) registrar.join();
  EXPECT_EQ(probe.calls.load(), 2 * kPerThread);
}

}  // namespace
}  // namespace halo_cpu_test
