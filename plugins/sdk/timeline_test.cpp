// Unit tests of the timeline core (halo::sdk::Timeline) against a fake host.
#include "halo/sdk/timeline.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

// Counts callbacks and remembers the last status code each saw.
struct Probe {
  std::atomic<int> calls{0};
  std::atomic<int> failures{0};
  std::atomic<halo_status_code_t> last_code{HALO_STATUS_OK};

  static void callback(void* user_data, halo_timepoint_t*,
                       halo_status_t status) noexcept {
    auto* probe = static_cast<Probe*>(user_data);
    probe->last_code = fake_host().code(status);
    if (status != nullptr) probe->failures.fetch_add(1);
    fake_host().free(status);
    probe->calls.fetch_add(1);
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

// Checks that every status the test created has been freed.
class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override { statuses_ = testing::live_statuses(); }
  void TearDown() override { EXPECT_EQ(testing::live_statuses(), statuses_); }

 private:
  long statuses_ = 0;
};

uint64_t value_of(const Timeline& timeline) {
  uint64_t value = 0;
  StatusHolder status(timeline.query(&value));
  EXPECT_EQ(status.get(), nullptr);
  return value;
}

TEST_F(TimelineTest, QueryReportsInitialValue) {
  Timeline zero(fake_host(), 0);
  Timeline some(fake_host(), 42);
  Timeline max(fake_host(), HALO_SEMAPHORE_MAX_VALUE);
  EXPECT_EQ(value_of(zero), 0u);
  EXPECT_EQ(value_of(some), 42u);
  EXPECT_EQ(value_of(max), HALO_SEMAPHORE_MAX_VALUE);
}

TEST_F(TimelineTest, SignalRaisesValue) {
  Timeline timeline(fake_host(), 1);
  EXPECT_EQ(timeline.signal(2), nullptr);
  EXPECT_EQ(timeline.signal(100), nullptr);
  EXPECT_EQ(value_of(timeline), 100u);
  EXPECT_EQ(timeline.signal(HALO_SEMAPHORE_MAX_VALUE), nullptr);
  EXPECT_EQ(value_of(timeline), HALO_SEMAPHORE_MAX_VALUE);
}

TEST_F(TimelineTest, SignalNotAboveCurrentIsRejected) {
  Timeline timeline(fake_host(), 10);
  StatusHolder same(timeline.signal(10));
  EXPECT_EQ(same.code(), HALO_STATUS_INVALID_ARGUMENT);
  StatusHolder lower(timeline.signal(3));
  EXPECT_EQ(lower.code(), HALO_STATUS_INVALID_ARGUMENT);
  StatusHolder above(timeline.signal(HALO_SEMAPHORE_MAX_VALUE + 1));
  EXPECT_EQ(above.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(value_of(timeline), 10u);
}

TEST_F(TimelineTest, RacingSignallersNeverLowerTheValue) {
  Timeline timeline(fake_host(), 0);
  constexpr int kThreads = 4;
  constexpr uint64_t kValues = 2000;
  std::atomic<int> accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t v = 1 + t; v <= kValues; v += kThreads) {
        halo_status_t status = timeline.signal(v);
        if (status == nullptr) accepted.fetch_add(1);
        fake_host().free(status);
      }
    });
  }
  uint64_t last = 0;
  while (last < kValues - kThreads + 1) {
    uint64_t now = timeline.payload();
    ASSERT_GE(now, last);
    last = now;
  }
  for (auto& thread : threads) thread.join();
  EXPECT_GE(value_of(timeline), kValues - kThreads + 1);
  EXPECT_GE(accepted.load(), 1);
}

TEST_F(TimelineTest, FailIsStickyAndFirstWins) {
  Timeline timeline(fake_host(), 5);
  timeline.fail(fake_host().make_status(HALO_STATUS_DATA_LOSS, "first"));
  timeline.fail(fake_host().make_status(HALO_STATUS_ABORTED, "second"));
  uint64_t value = 0;
  StatusHolder queried(timeline.query(&value));
  EXPECT_GE(value, HALO_SEMAPHORE_FAILURE_VALUE);
  EXPECT_EQ(queried.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(queried.message(), "first");
  StatusHolder signalled(timeline.signal(6));
  EXPECT_EQ(signalled.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(signalled.message(), "first");
}

TEST_F(TimelineTest, TimepointRunsInlineWhenReached) {
  Timeline timeline(fake_host(), 7);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(7, &probe);
  EXPECT_EQ(timeline.acquire(&timepoint), nullptr);
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_EQ(timeline.pending_timepoints(), 0u);
  EXPECT_FALSE(timeline.cancel(&timepoint));
}

TEST_F(TimelineTest, TimepointRunsOnceOnSignal) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(3, &probe);
  ASSERT_EQ(timeline.acquire(&timepoint), nullptr);
  EXPECT_EQ(probe.calls.load(), 0);
  ASSERT_EQ(timeline.signal(2), nullptr);
  EXPECT_EQ(probe.calls.load(), 0);
  ASSERT_EQ(timeline.signal(5), nullptr);
  EXPECT_EQ(probe.calls.load(), 1);
  ASSERT_EQ(timeline.signal(9), nullptr);
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_EQ(probe.last_code.load(), HALO_STATUS_OK);
  EXPECT_FALSE(timeline.cancel(&timepoint));
}

TEST_F(TimelineTest, SignalReleasesOnlyReachedPrefixInValueOrder) {
  Timeline timeline(fake_host(), 0);
  std::vector<uint64_t> order;
  struct Recorder {
    std::vector<uint64_t>* order;
    static void callback(void* user_data, halo_timepoint_t* timepoint,
                         halo_status_t status) noexcept {
      fake_host().free(status);
      static_cast<Recorder*>(user_data)->order->push_back(timepoint->value);
    }
  } recorder{&order};
  const uint64_t values[] = {5, 3, 7, 1, 3, 9};
  halo_timepoint_t timepoints[6] = {};
  for (int i = 0; i < 6; ++i) {
    timepoints[i].struct_size = sizeof(halo_timepoint_t);
    timepoints[i].value = values[i];
    timepoints[i].callback = &Recorder::callback;
    timepoints[i].user_data = &recorder;
    ASSERT_EQ(timeline.acquire(&timepoints[i]), nullptr);
  }
  ASSERT_EQ(timeline.signal(4), nullptr);
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 3, 3}));
  EXPECT_EQ(timeline.pending_timepoints(), 3u);
  ASSERT_EQ(timeline.signal(8), nullptr);
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 3, 3, 5, 7}));
  ASSERT_EQ(timeline.signal(9), nullptr);
  EXPECT_EQ(order.size(), 6u);
}

TEST_F(TimelineTest, FailureReleasesEveryTimepointWithACopy) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t first = make_timepoint(1, &probe);
  halo_timepoint_t second = make_timepoint(100, &probe);
  ASSERT_EQ(timeline.acquire(&first), nullptr);
  ASSERT_EQ(timeline.acquire(&second), nullptr);
  timeline.fail(fake_host().make_status(HALO_STATUS_ABORTED, "boom"));
  EXPECT_EQ(probe.calls.load(), 2);
  EXPECT_EQ(probe.failures.load(), 2);
  EXPECT_EQ(probe.last_code.load(), HALO_STATUS_ABORTED);
  // Registered after the failure: inline, with the failure.
  halo_timepoint_t late = make_timepoint(1, &probe);
  ASSERT_EQ(timeline.acquire(&late), nullptr);
  EXPECT_EQ(probe.failures.load(), 3);
}

TEST_F(TimelineTest, CancelBeforeSignalMeansNeverCalled) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(1, &probe);
  ASSERT_EQ(timeline.acquire(&timepoint), nullptr);
  EXPECT_TRUE(timeline.cancel(&timepoint));
  EXPECT_EQ(timeline.pending_timepoints(), 0u);
  ASSERT_EQ(timeline.signal(1), nullptr);
  EXPECT_EQ(probe.calls.load(), 0);
  EXPECT_FALSE(timeline.cancel(&timepoint));
}

TEST_F(TimelineTest, CancelRacingSignalIsExactlyOnceOrNever) {
  constexpr int kIterations = 2000;
  for (int i = 0; i < kIterations; ++i) {
    Timeline timeline(fake_host(), 0);
    Probe probe;
    halo_timepoint_t timepoint = make_timepoint(1, &probe);
    ASSERT_EQ(timeline.acquire(&timepoint), nullptr);
    std::thread signaller([&] { EXPECT_EQ(timeline.signal(1), nullptr); });
    bool cancelled = timeline.cancel(&timepoint);
    // Race-free: right after cancel the count is final.
    int calls_at_return = probe.calls.load();
    signaller.join();
    ASSERT_EQ(calls_at_return, cancelled ? 0 : 1);
    ASSERT_EQ(probe.calls.load(), cancelled ? 0 : 1);
  }
}

TEST_F(TimelineTest, CancelWaitsForACallbackRunningElsewhere) {
  for (int i = 0; i < 50; ++i) {
    Timeline timeline(fake_host(), 0);
    struct Slow {
      std::atomic<bool> started{false};
      std::atomic<bool> release{false};
      std::atomic<bool> finished{false};
      static void callback(void* user_data, halo_timepoint_t*,
                           halo_status_t status) noexcept {
        fake_host().free(status);
        auto* self = static_cast<Slow*>(user_data);
        self->started = true;
        while (!self->release.load()) std::this_thread::yield();
        self->finished = true;
      }
    } slow;
    halo_timepoint_t timepoint = {};
    timepoint.struct_size = sizeof(timepoint);
    timepoint.value = 1;
    timepoint.callback = &Slow::callback;
    timepoint.user_data = &slow;
    ASSERT_EQ(timeline.acquire(&timepoint), nullptr);
    std::thread signaller([&] { EXPECT_EQ(timeline.signal(1), nullptr); });
    while (!slow.started.load()) std::this_thread::yield();
    std::atomic<bool> cancelling{false};
    std::thread releaser([&] {
      while (!cancelling.load()) std::this_thread::yield();
      slow.release = true;
    });
    cancelling = true;
    EXPECT_FALSE(timeline.cancel(&timepoint));
    EXPECT_TRUE(slow.finished.load());
    releaser.join();
    signaller.join();
  }
}

// A callback that cancels another timepoint of the same dispatch must not
// deadlock, and the cancelled one must never run.
TEST_F(TimelineTest, CancelFromInsideCallbackOfSameDispatch) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t victim = make_timepoint(1, &probe);
  struct Canceller {
    Timeline* timeline;
    halo_timepoint_t* victim;
    bool result = false;
    static void callback(void* user_data, halo_timepoint_t*,
                         halo_status_t status) noexcept {
      fake_host().free(status);
      auto* self = static_cast<Canceller*>(user_data);
      self->result = self->timeline->cancel(self->victim);
    }
  } canceller{&timeline, &victim};
  halo_timepoint_t first = {};
  first.struct_size = sizeof(first);
  first.value = 1;
  first.callback = &Canceller::callback;
  first.user_data = &canceller;
  ASSERT_EQ(timeline.acquire(&first), nullptr);
  ASSERT_EQ(timeline.acquire(&victim), nullptr);
  ASSERT_EQ(timeline.signal(1), nullptr);
  EXPECT_TRUE(canceller.result);
  EXPECT_EQ(probe.calls.load(), 0);
}

// A callback that cancels a timepoint already run in the same dispatch gets
// false at once instead of waiting for its own dispatch.
TEST_F(TimelineTest, CancelOfEarlierTimepointFromLaterCallback) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t earlier = make_timepoint(1, &probe);
  struct Canceller {
    Timeline* timeline;
    halo_timepoint_t* earlier;
    int result = -1;
    static void callback(void* user_data, halo_timepoint_t*,
                         halo_status_t status) noexcept {
      fake_host().free(status);
      auto* self = static_cast<Canceller*>(user_data);
      self->result = self->timeline->cancel(self->earlier) ? 1 : 0;
    }
  } canceller{&timeline, &earlier};
  halo_timepoint_t later = {};
  later.struct_size = sizeof(later);
  later.value = 2;
  later.callback = &Canceller::callback;
  later.user_data = &canceller;
  ASSERT_EQ(timeline.acquire(&earlier), nullptr);
  ASSERT_EQ(timeline.acquire(&later), nullptr);
  ASSERT_EQ(timeline.signal(2), nullptr);
  EXPECT_EQ(canceller.result, 0);
  EXPECT_EQ(probe.calls.load(), 1);
}

TEST_F(TimelineTest, CallbackMayFreeItsTimepoint) {
  Timeline timeline(fake_host(), 0);
  std::atomic<int> calls{0};
  auto callback = [](void* user_data, halo_timepoint_t* timepoint,
                     halo_status_t status) noexcept {
    fake_host().free(status);
    delete timepoint;
    static_cast<std::atomic<int>*>(user_data)->fetch_add(1);
  };
  for (int i = 0; i < 100; ++i) {
    auto* timepoint = new halo_timepoint_t{};
    timepoint->struct_size = sizeof(halo_timepoint_t);
    timepoint->value = 1 + i % 3;
    timepoint->callback = callback;
    timepoint->user_data = &calls;
    ASSERT_EQ(timeline.acquire(timepoint), nullptr);
  }
  ASSERT_EQ(timeline.signal(3), nullptr);
  EXPECT_EQ(calls.load(), 100);
}

TEST_F(TimelineTest, TenThousandTimepoints) {
  Timeline timeline(fake_host(), 0);
  constexpr int kCount = 10000;
  Probe probe;
  std::vector<halo_timepoint_t> timepoints(kCount);
  for (int i = 0; i < kCount; ++i) {
    timepoints[i] = make_timepoint(1 + i, &probe);
    ASSERT_EQ(timeline.acquire(&timepoints[i]), nullptr);
  }
  EXPECT_EQ(timeline.pending_timepoints(), static_cast<size_t>(kCount));
  ASSERT_EQ(timeline.signal(kCount / 2), nullptr);
  EXPECT_EQ(probe.calls.load(), kCount / 2);
  ASSERT_EQ(timeline.signal(kCount), nullptr);
  EXPECT_EQ(probe.calls.load(), kCount);
}

TEST_F(TimelineTest, FastPathsAllocateNothing) {
  Timeline timeline(fake_host(), 0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(1000, &probe);
  ASSERT_EQ(timeline.acquire(&timepoint), nullptr);
  long before = testing::total_allocations();
  uint64_t value = 0;
  for (uint64_t v = 1; v < 100; ++v) {
    ASSERT_EQ(timeline.signal(v), nullptr);
    ASSERT_EQ(timeline.query(&value), nullptr);
  }
  EXPECT_EQ(testing::total_allocations(), before);
  EXPECT_TRUE(timeline.cancel(&timepoint));
}

TEST_F(TimelineTest, ChangeHookSeesEverySignalAndTheFailure) {
  struct Hooked : Timeline {
    using Timeline::Timeline;
    std::vector<uint64_t> seen;
    void on_changed(uint64_t payload) noexcept override {
      seen.push_back(payload);
    }
  } timeline(fake_host(), 0);
  ASSERT_EQ(timeline.signal(4), nullptr);
  ASSERT_EQ(timeline.signal(6), nullptr);
  timeline.fail(fake_host().make_status(HALO_STATUS_INTERNAL, "x"));
  EXPECT_EQ(timeline.seen, (std::vector<uint64_t>{
                               4, 6, HALO_SEMAPHORE_FAILURE_VALUE}));
}

TEST_F(TimelineTest, ConcurrentRegistrationAndSignalsLoseNothing) {
  Timeline timeline(fake_host(), 0);
  constexpr int kPerThread = 500;
  constexpr int kThreads = 3;
  Probe probe;
  std::vector<halo_timepoint_t> timepoints(kPerThread * kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        halo_timepoint_t& tp = timepoints[t * kPerThread + i];
        tp = make_timepoint(1 + i, &probe);
        EXPECT_EQ(timeline.acquire(&tp), nullptr);
      }
    });
  }
  for (uint64_t v = 1; v <= kPerThread; ++v) {
    ASSERT_EQ(timeline.signal(v), nullptr);
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(probe.calls.load(), kPerThread * kThreads);
  EXPECT_EQ(timeline.pending_timepoints(), 0u);
}

TEST_F(TimelineTest, RejectsBadTimepoints) {
  Timeline timeline(fake_host(), 0);
  StatusHolder null_timepoint(timeline.acquire(nullptr));
  EXPECT_EQ(null_timepoint.code(), HALO_STATUS_INVALID_ARGUMENT);
  Probe probe;
  halo_timepoint_t too_big = make_timepoint(HALO_SEMAPHORE_MAX_VALUE + 1,
                                            &probe);
  StatusHolder big(timeline.acquire(&too_big));
  EXPECT_EQ(big.code(), HALO_STATUS_INVALID_ARGUMENT);
  halo_timepoint_t no_callback = make_timepoint(1, &probe);
  no_callback.callback = nullptr;
  StatusHolder missing(timeline.acquire(&no_callback));
  EXPECT_EQ(missing.code(), HALO_STATUS_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace halo::sdk
