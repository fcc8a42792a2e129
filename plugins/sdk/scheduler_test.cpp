// Unit tests of the pending-submission scheduler against a fake host and a
// tiny semaphore object of the test's own, built on the timeline core.
#include "halo/sdk/scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "halo/sdk/queue_signal.hpp"
#include "halo/sdk/timeline.hpp"
#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

std::atomic<int> g_destroyed{0};

// A semaphore object whose vtable forwards to a Timeline, standing in for
// "some plugin's semaphore": the scheduler only ever goes through the vtable.
struct TestSemaphore {
  halo_object_t header;
  Timeline timeline;
  bool refuse_timepoints = false;

  static TestSemaphore* cast(halo_semaphore_t* handle) {
    return reinterpret_cast<TestSemaphore*>(handle);
  }
  static void destroy(halo_object_t* object) {
    delete reinterpret_cast<TestSemaphore*>(object);
    g_destroyed.fetch_add(1);
  }
  static halo_status_t query(halo_semaphore_t* s, uint64_t* out_value) {
    return cast(s)->timeline.query(out_value);
  }
  static halo_status_t signal(halo_semaphore_t* s, uint64_t value) {
    return cast(s)->timeline.signal(value);
  }
  static void fail(halo_semaphore_t* s, halo_status_t status) {
    cast(s)->timeline.fail(status);
  }
  static halo_status_t wait(halo_semaphore_t*, uint64_t, halo_time_ns_t) {
    return fake_host().make_status_text(HALO_STATUS_UNIMPLEMENTED, "wait");
  }
  static halo_status_t acquire(halo_semaphore_t* s, halo_timepoint_t* tp) {
    if (cast(s)->refuse_timepoints) {
      return fake_host().make_status_text(HALO_STATUS_UNAVAILABLE, "refused");
    }
    return cast(s)->timeline.acquire(tp);
  }
  static bool cancel(halo_semaphore_t* s, halo_timepoint_t* tp) {
    return cast(s)->timeline.cancel(tp);
  }
  static halo_device_t* device(halo_semaphore_t*) { return nullptr; }
};

const halo_semaphore_vtable_t kVtable = {
    {sizeof(halo_semaphore_vtable_t), HALO_OBJECT_TYPE_SEMAPHORE,
     &TestSemaphore::destroy},
    &TestSemaphore::query,
    &TestSemaphore::signal,
    &TestSemaphore::fail,
    &TestSemaphore::wait,
    &TestSemaphore::acquire,
    &TestSemaphore::cancel,
    &TestSemaphore::device,
};

halo_semaphore_t* make_semaphore(uint64_t initial) {
  auto* semaphore = new TestSemaphore{
      HALO_OBJECT_HEADER_INIT(&kVtable), {fake_host(), initial}, false};
  return reinterpret_cast<halo_semaphore_t*>(semaphore);
}

void release(halo_semaphore_t* semaphore) {
  fake_host().release(as_object(semaphore));
}

uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  fake_host().free(TestSemaphore::query(semaphore, &value));
  return value;
}

// A submission that records its ready calls.
class Recorder : public PendingSubmission {
 public:
  Recorder(const Init& init, std::atomic<int>* ready_calls)
      : PendingSubmission(init), ready_calls_(ready_calls) {}

  static void on_ready(PendingSubmission* submission) noexcept {
    static_cast<Recorder*>(submission)->ready_calls_->fetch_add(1);
  }

 private:
  std::atomic<int>* ready_calls_;
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    statuses_ = testing::live_statuses();
    allocations_ = testing::live_allocations();
  }
  void TearDown() override {
    EXPECT_EQ(testing::live_statuses(), statuses_);
    EXPECT_EQ(testing::live_allocations(), allocations_);
  }

 private:
  long statuses_ = 0;
  long allocations_ = 0;
};

TEST_F(SchedulerTest, NoWaitsIsReadyInline) {
  std::atomic<int> ready{0};
  halo_semaphore_t* signal = make_semaphore(0);
  uint64_t signal_value = 1;
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {}, {1, &signal, &signal_value}, &ready);
  s->start(&Recorder::on_ready);
  EXPECT_EQ(ready.load(), 1);
  s->complete();
  EXPECT_EQ(value_of(signal), 1u);
  PendingSubmission::destroy(s);
  release(signal);
}

TEST_F(SchedulerTest, ReadyAfterEveryWaitIsReached) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[3] = {make_semaphore(0), make_semaphore(5),
                                make_semaphore(0)};
  uint64_t values[3] = {1, 5, 2};
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {3, waits, values}, {}, &ready);
  s->start(&Recorder::on_ready);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[0], 1), nullptr);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[2], 7), nullptr);
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(s->failure(), nullptr);
  s->complete();
  PendingSubmission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SchedulerTest, FailureFiresEarlyAndFailsEverySignal) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t wait_values[2] = {1, 1};
  halo_semaphore_t* signals[2] = {make_semaphore(0), make_semaphore(3)};
  uint64_t signal_values[2] = {1, 4};
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {2, waits, wait_values}, {2, signals, signal_values},
      &ready);
  s->start(&Recorder::on_ready);
  TestSemaphore::fail(waits[1],
                      fake_host().make_status(HALO_STATUS_ABORTED, "gone"));
  EXPECT_EQ(ready.load(), 1);
  ASSERT_NE(s->failure(), nullptr);
  // The other wait is never reached: complete cancels it.
  s->complete();
  for (auto* signal : signals) {
    uint64_t value = 0;
    StatusHolder status(TestSemaphore::query(signal, &value));
    EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
    EXPECT_EQ(status.message(), "gone");
    EXPECT_GE(value, HALO_SEMAPHORE_FAILURE_VALUE);
  }
  PendingSubmission::destroy(s);
  EXPECT_EQ(TestSemaphore::cast(waits[0])->timeline.pending_timepoints(), 0u);
  for (auto* w : waits) release(w);
  for (auto* x : signals) release(x);
}

TEST_F(SchedulerTest, AlreadyFailedWaitIsReportedAfterRegistration) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t values[2] = {1, 1};
  TestSemaphore::fail(waits[0],
                      fake_host().make_status(HALO_STATUS_INTERNAL, "early"));
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {2, waits, values}, {}, &ready);
  s->start(&Recorder::on_ready);
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(fake_host().code(s->failure()), HALO_STATUS_INTERNAL);
  s->finish_waits();
  PendingSubmission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SchedulerTest, RefusedRegistrationCountsAsFailure) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  TestSemaphore::cast(wait)->refuse_timepoints = true;
  uint64_t value = 1;
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {1, &wait, &value}, {}, &ready);
  s->start(&Recorder::on_ready);
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(fake_host().code(s->failure()), HALO_STATUS_UNAVAILABLE);
  s->complete();
  PendingSubmission::destroy(s);
  release(wait);
}

TEST_F(SchedulerTest, RetainsEverySemaphoreUntilDestroyed) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  halo_semaphore_t* signal = make_semaphore(0);
  uint64_t one = 1;
  auto* s = PendingSubmission::create<Recorder>(
      fake_host(), {1, &wait, &one}, {1, &signal, &one}, &ready);
  int destroyed = g_destroyed.load();
  release(signal);
  s->start(&Recorder::on_ready);
  ASSERT_EQ(TestSemaphore::signal(wait, 1), nullptr);
  release(wait);
  EXPECT_EQ(g_destroyed.load(), destroyed);
  ASSERT_EQ(ready.load(), 1);
  s->complete();
  PendingSubmission::destroy(s);
  EXPECT_EQ(g_destroyed.load(), destroyed + 2);
}

TEST_F(SchedulerTest, ReadyExactlyOnceUnderConcurrentSignalsAndFailures) {
  constexpr int kIterations = 300;
  constexpr int kWaits = 4;
  for (int i = 0; i < kIterations; ++i) {
    std::atomic<int> ready{0};
    halo_semaphore_t* waits[kWaits];
    uint64_t values[kWaits];
    for (int w = 0; w < kWaits; ++w) {
      waits[w] = make_semaphore(0);
      values[w] = 1;
    }
    auto* s = PendingSubmission::create<Recorder>(
        fake_host(), {kWaits, waits, values}, {}, &ready);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWaits; ++w) {
      threads.emplace_back([&, w] {
        if ((i + w) % 3 == 0) {
          TestSemaphore::fail(
              waits[w], fake_host().make_status(HALO_STATUS_ABORTED, "x"));
        } else {
          EXPECT_EQ(TestSemaphore::signal(waits[w], 1), nullptr);
        }
      });
    }
    s->start(&Recorder::on_ready);
    for (auto& thread : threads) thread.join();
    ASSERT_EQ(ready.load(), 1);
    s->finish_waits();
    PendingSubmission::destroy(s);
    for (auto* w : waits) release(w);
  }
}

TEST_F(SchedulerTest, RefusedQueueSignalFailsItsSemaphoreAndTheRestGoOn) {
  halo_semaphore_t* semaphores[3] = {make_semaphore(0), make_semaphore(9),
                                     make_semaphore(0)};
  uint64_t values[3] = {1, 2, 3};
  signal_semaphores(fake_host(), {3, semaphores, values});
  EXPECT_EQ(value_of(semaphores[0]), 1u);
  EXPECT_EQ(value_of(semaphores[2]), 3u);
  // Semaphore 1 was past its signal: it fails, naming the signal, its value
  // and the payload, instead of staying at 9 while waiters for 2 hang.
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphores[1], &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("queue signal 1: value 2 is not above the "
                                  "semaphore's payload 9"),
            std::string::npos)
      << status.message();
  for (auto* s : semaphores) release(s);
}

TEST_F(SchedulerTest, QueueSignalAtThePayloadFailsTheSemaphore) {
  halo_semaphore_t* semaphore = make_semaphore(4);
  signal_from_queue(fake_host(), semaphore, 4, 0);
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphore, &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_GE(payload, HALO_SEMAPHORE_FAILURE_VALUE);
  release(semaphore);
}

TEST_F(SchedulerTest, QueueSignalRefusedForAnotherReasonFailsWithThatReason) {
  halo_semaphore_t* semaphore = make_semaphore(0);
  signal_from_queue(fake_host(), semaphore, HALO_SEMAPHORE_MAX_VALUE + 1, 2);
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphore, &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message().rfind("queue signal 2 (value ", 0), 0u)
      << status.message();
  release(semaphore);
}

TEST_F(SchedulerTest, QueueSignalKeepsAnEarlierFailure) {
  halo_semaphore_t* semaphore = make_semaphore(5);
  TestSemaphore::fail(semaphore, fake_host().make_status_text(
                                     HALO_STATUS_ABORTED, "first failure"));
  signal_from_queue(fake_host(), semaphore, 3, 0);
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphore, &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
  EXPECT_EQ(status.message(), "first failure");
  release(semaphore);
}

}  // namespace
}  // namespace halo::sdk
