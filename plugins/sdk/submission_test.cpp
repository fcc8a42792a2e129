// Unit tests of the submission core, its tracker and its worker against a
// fake host and a tiny semaphore object of the test's own, built on the
// timeline core.
#include "halo/sdk/submission.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/queue_signal.hpp"
#include "halo/sdk/timeline.hpp"
#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

std::atomic<int> g_destroyed{0};

// A semaphore object whose vtable forwards to a Timeline, standing in for
// "some plugin's semaphore": the submission core only goes through the
// vtable.
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
class Recorder : public Submission {
 public:
  Recorder(const Init& init, std::atomic<int>* ready_calls)
      : Submission(init), ready_calls_(ready_calls) {}

  static void on_ready(Submission* submission) noexcept {
    static_cast<Recorder*>(submission)->ready_calls_->fetch_add(1);
  }

  // Registers the waits; counts the ready call either way.
  void start() noexcept {
    if (register_waits(&Recorder::on_ready)) on_ready(this);
  }

 private:
  std::atomic<int>* ready_calls_;
};

Recorder* make_recorder(const SemaphoreList& waits,
                        const SemaphoreList& signals, std::atomic<int>* ready) {
  return Submission::create<Recorder>(fake_host(), nullptr, nullptr,
                                      SubmissionLists{waits, signals}, ready);
}

using SubmissionTest = testing::LeakCheckedTest;

TEST_F(SubmissionTest, NoWaitsIsReadyInline) {
  std::atomic<int> ready{0};
  halo_semaphore_t* signal = make_semaphore(0);
  uint64_t signal_value = 1;
  auto* s = make_recorder({}, {1, &signal, &signal_value}, &ready);
  s->start();
  EXPECT_EQ(ready.load(), 1);
  s->complete();
  EXPECT_EQ(value_of(signal), 1u);
  Submission::destroy(s);
  release(signal);
}

TEST_F(SubmissionTest, ReadyAfterEveryWaitIsReached) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[3] = {make_semaphore(0), make_semaphore(5),
                                make_semaphore(0)};
  uint64_t values[3] = {1, 5, 2};
  auto* s = make_recorder({3, waits, values}, {}, &ready);
  s->start();
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[0], 1), nullptr);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[2], 7), nullptr);
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(s->failure(), nullptr);
  s->complete();
  Submission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SubmissionTest, FailureFiresEarlyAndFailsEverySignal) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t wait_values[2] = {1, 1};
  halo_semaphore_t* signals[2] = {make_semaphore(0), make_semaphore(3)};
  uint64_t signal_values[2] = {1, 4};
  auto* s = make_recorder({2, waits, wait_values}, {2, signals, signal_values},
                          &ready);
  s->start();
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
  Submission::destroy(s);
  EXPECT_EQ(TestSemaphore::cast(waits[0])->timeline.pending_timepoints(), 0u);
  for (auto* w : waits) release(w);
  for (auto* x : signals) release(x);
}

TEST_F(SubmissionTest, AlreadyFailedWaitIsReportedAfterRegistration) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t values[2] = {1, 1};
  TestSemaphore::fail(waits[0],
                      fake_host().make_status(HALO_STATUS_INTERNAL, "early"));
  auto* s = make_recorder({2, waits, values}, {}, &ready);
  s->start();
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(fake_host().code(s->failure()), HALO_STATUS_INTERNAL);
  s->finish_waits();
  Submission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SubmissionTest, RefusedRegistrationCountsAsFailure) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  TestSemaphore::cast(wait)->refuse_timepoints = true;
  uint64_t value = 1;
  auto* s = make_recorder({1, &wait, &value}, {}, &ready);
  s->start();
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(fake_host().code(s->failure()), HALO_STATUS_UNAVAILABLE);
  s->complete();
  Submission::destroy(s);
  release(wait);
}

TEST_F(SubmissionTest, RetainsEverySemaphoreUntilDestroyed) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  halo_semaphore_t* signal = make_semaphore(0);
  uint64_t one = 1;
  auto* s = make_recorder({1, &wait, &one}, {1, &signal, &one}, &ready);
  int destroyed = g_destroyed.load();
  release(signal);
  s->start();
  ASSERT_EQ(TestSemaphore::signal(wait, 1), nullptr);
  release(wait);
  EXPECT_EQ(g_destroyed.load(), destroyed);
  ASSERT_EQ(ready.load(), 1);
  s->complete();
  Submission::destroy(s);
  EXPECT_EQ(g_destroyed.load(), destroyed + 2);
}

TEST_F(SubmissionTest, ReadyExactlyOnceUnderConcurrentSignalsAndFailures) {
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
    auto* s = make_recorder({kWaits, waits, values}, {}, &ready);
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
    s->start();
    for (auto& thread : threads) thread.join();
    ASSERT_EQ(ready.load(), 1);
    s->finish_waits();
    Submission::destroy(s);
    for (auto* w : waits) release(w);
  }
}

TEST_F(SubmissionTest, NativeWaitsGetNoTimepoint) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t values[2] = {1, 1};
  auto* s = make_recorder({2, waits, values}, {}, &ready);
  s->set_native(0);
  s->start();
  EXPECT_EQ(TestSemaphore::cast(waits[0])->timeline.pending_timepoints(), 0u);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[1], 1), nullptr);
  EXPECT_EQ(ready.load(), 1);
  s->complete();
  Submission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SubmissionTest, EveryWaitNativeIsReadyAtRegistration) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  uint64_t value = 1;
  auto* s = make_recorder({1, &wait, &value}, {}, &ready);
  s->set_native(0);
  EXPECT_TRUE(s->register_waits(&Recorder::on_ready));
  EXPECT_EQ(ready.load(), 0);  // The caller owns a submission ready at once.
  Submission::destroy(s);
  release(wait);
}

// An AcquireFunction that registers through the vtable, counting its
// calls, and refuses waits on semaphores above value 100 as a plugin's own
// registration may.
std::atomic<int> g_acquired{0};
halo_status_t counting_acquire(Submission*, halo_semaphore_t* semaphore,
                               halo_timepoint_t* timepoint) noexcept {
  g_acquired.fetch_add(1);
  if (value_of(semaphore) > 100) {
    return fake_host().make_status_text(HALO_STATUS_ABORTED, "own refusal");
  }
  return TestSemaphore::acquire(semaphore, timepoint);
}

TEST_F(SubmissionTest, AcquireFunctionRegistersEveryHostWait) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[3] = {make_semaphore(0), make_semaphore(0),
                                make_semaphore(0)};
  uint64_t values[3] = {1, 1, 1};
  auto* s = make_recorder({3, waits, values}, {}, &ready);
  s->set_native(1);
  g_acquired.store(0);
  EXPECT_FALSE(s->register_waits(&Recorder::on_ready, &counting_acquire));
  EXPECT_EQ(g_acquired.load(), 2);  // Not the native wait.
  ASSERT_EQ(TestSemaphore::signal(waits[0], 1), nullptr);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[2], 1), nullptr);
  EXPECT_EQ(ready.load(), 1);
  EXPECT_EQ(s->failure(), nullptr);
  s->complete();
  Submission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SubmissionTest, AcquireFunctionRefusalCountsAsFailure) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(101);
  uint64_t value = 102;
  auto* s = make_recorder({1, &wait, &value}, {}, &ready);
  EXPECT_TRUE(s->register_waits(&Recorder::on_ready, &counting_acquire));
  EXPECT_EQ(fake_host().code(s->failure()), HALO_STATUS_ABORTED);
  s->complete();
  Submission::destroy(s);
  release(wait);
}

TEST_F(SubmissionTest, ConvertToNativeCancelsTheTimepointAndMakesReady) {
  std::atomic<int> ready{0};
  halo_semaphore_t* wait = make_semaphore(0);
  uint64_t value = 1;
  auto* s = make_recorder({1, &wait, &value}, {}, &ready);
  s->start();
  EXPECT_EQ(s->wait(0).state.load(), Submission::kRegistered);
  EXPECT_TRUE(s->convert_to_native(0));
  EXPECT_EQ(ready.load(), 0);
  EXPECT_EQ(s->wait(0).state.load(), Submission::kNative);
  EXPECT_EQ(TestSemaphore::cast(wait)->timeline.pending_timepoints(), 0u);
  // The signal no longer reaches the submission.
  ASSERT_EQ(TestSemaphore::signal(wait, 1), nullptr);
  EXPECT_EQ(ready.load(), 0);
  Submission::destroy(s);
  release(wait);
}

TEST_F(SubmissionTest, ConvertToNativeAfterTheCallbackRanIsRefused) {
  std::atomic<int> ready{0};
  halo_semaphore_t* waits[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t values[2] = {1, 1};
  auto* s = make_recorder({2, waits, values}, {}, &ready);
  s->start();
  ASSERT_EQ(TestSemaphore::signal(waits[0], 1), nullptr);
  EXPECT_FALSE(s->convert_to_native(0));
  EXPECT_EQ(s->wait(0).state.load(), Submission::kSettled);
  EXPECT_EQ(ready.load(), 0);
  ASSERT_EQ(TestSemaphore::signal(waits[1], 1), nullptr);
  EXPECT_EQ(ready.load(), 1);
  s->complete();
  Submission::destroy(s);
  for (auto* w : waits) release(w);
}

TEST_F(SubmissionTest, CompleteLeavesNativeSignalsToTheDevice) {
  std::atomic<int> ready{0};
  halo_semaphore_t* signals[2] = {make_semaphore(0), make_semaphore(0)};
  uint64_t values[2] = {4, 5};
  auto* s = make_recorder({}, {2, signals, values}, &ready);
  s->start();
  s->signal(0).native = true;
  s->complete();
  EXPECT_EQ(value_of(signals[0]), 0u);
  EXPECT_EQ(value_of(signals[1]), 5u);
  Submission::destroy(s);
  for (auto* x : signals) release(x);
}

// A submission with an array of its own in the same allocation.
class WithExtra : public Submission {
 public:
  struct Extra {
    size_t flags = 0;
  };
  static Extra plan_extra(AllocationPlan& plan, const SubmissionLists& lists) {
    return {plan.reserve<uint32_t>(lists.waits.count + 1)};
  }
  WithExtra(const Init& init, const Extra& extra)
      : Submission(init), flags(init.at<uint32_t>(extra.flags)) {}
  uint32_t* flags;
};

TEST_F(SubmissionTest, OneAllocationHoldsTheListsAndThePluginsArrays) {
  halo_semaphore_t* waits[3] = {make_semaphore(5), make_semaphore(5),
                                make_semaphore(5)};
  uint64_t values[3] = {1, 2, 3};
  const long before = testing::live_allocations();
  auto* s = Submission::create<WithExtra>(
      fake_host(), nullptr, nullptr,
      SubmissionLists{{3, waits, values}, {3, waits, values}});
  EXPECT_EQ(testing::live_allocations(), before + 1);
  auto* begin = reinterpret_cast<char*>(s);
  auto* flags = reinterpret_cast<char*>(s->flags);
  EXPECT_GE(flags, begin + sizeof(WithExtra));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(flags) % alignof(uint32_t), 0u);
  for (uint32_t i = 0; i < 4; ++i) s->flags[i] = i;  // Writable (ASan).
  EXPECT_EQ(s->wait(2).value, 3u);
  EXPECT_EQ(s->signal(1).semaphore, waits[1]);
  Submission::destroy(s);
  EXPECT_EQ(testing::live_allocations(), before);
  for (auto* w : waits) release(w);
}

// A queue made of the SDK's worker and tracker, as the plugins make theirs.
struct TestQueue {
  TestQueue() : worker(&TestQueue::process, this) {}

  static void process(void* self, Submission* submission) noexcept {
    auto* queue = static_cast<TestQueue*>(self);
    queue->order.push_back(submission->sequence);
    submission->complete();
    submission->release_resources();
    queue->in_flight.untrack(submission);
    Submission::destroy(submission);
  }
  static void on_ready(Submission* submission) noexcept {
    g_queue->worker.post(submission);
  }

  static TestQueue* g_queue;
  InFlightTracker in_flight;
  CompletionWorker worker;
  std::vector<uint64_t> order;  // Only the worker touches it before stop.
};
TestQueue* TestQueue::g_queue = nullptr;

TEST_F(SubmissionTest, WorkerProcessesInOrderAndWaitIdleSeesThemGo) {
  TestQueue queue;
  TestQueue::g_queue = &queue;
  queue.worker.start();
  halo_semaphore_t* gate = make_semaphore(0);
  halo_semaphore_t* signal = make_semaphore(0);
  uint64_t gate_value = 1;
  uint64_t signal_values[3] = {1, 2, 3};
  std::atomic<int> ready{0};
  for (int i = 0; i < 3; ++i) {
    auto* s = make_recorder({1, &gate, &gate_value},
                            {1, &signal, &signal_values[i]}, &ready);
    queue.in_flight.track(s);
    if (s->register_waits(&TestQueue::on_ready)) queue.worker.post(s);
  }
  StatusHolder early(
      queue.in_flight.wait_idle(fake_host(), HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(early.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  ASSERT_EQ(TestSemaphore::signal(gate, 1), nullptr);
  EXPECT_EQ(
      queue.in_flight.wait_idle(fake_host(), HALO_DEADLINE_INFINITE_FUTURE),
      nullptr);
  queue.worker.stop();
  EXPECT_EQ(value_of(signal), 3u);
  EXPECT_EQ(queue.order.size(), 3u);
  release(gate);
  release(signal);
}

// The worker's owner freed by the worker itself, as a device whose last
// reference goes with its last submission.
struct SelfStoppingQueue {
  SelfStoppingQueue() : worker(&SelfStoppingQueue::process, this) {}
  static void process(void* self, Submission* submission) noexcept {
    auto* queue = static_cast<SelfStoppingQueue*>(self);
    Submission::destroy(submission);
    std::promise<void>* stopped = queue->stopped;
    EXPECT_TRUE(queue->worker.is_current_thread());
    queue->worker.stop();
    delete queue;
    stopped->set_value();
  }
  CompletionWorker worker;
  std::promise<void>* stopped = nullptr;
};

TEST_F(SubmissionTest, WorkerStoppedFromItsOwnThreadLeavesNothingBehind) {
  std::promise<void> stopped;
  auto* queue = new SelfStoppingQueue();
  queue->stopped = &stopped;
  queue->worker.start();
  EXPECT_FALSE(queue->worker.is_current_thread());
  std::atomic<int> ready{0};
  queue->worker.post(make_recorder({}, {}, &ready));
  stopped.get_future().wait();
}

TEST_F(SubmissionTest, RefusedQueueSignalFailsItsSemaphoreAndTheRestGoOn) {
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

TEST_F(SubmissionTest, QueueSignalAtThePayloadFailsTheSemaphore) {
  halo_semaphore_t* semaphore = make_semaphore(4);
  signal_from_queue(fake_host(), semaphore, 4, 0);
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphore, &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_GE(payload, HALO_SEMAPHORE_FAILURE_VALUE);
  release(semaphore);
}

TEST_F(SubmissionTest, QueueSignalRefusedForAnotherReasonFailsWithThatReason) {
  halo_semaphore_t* semaphore = make_semaphore(0);
  signal_from_queue(fake_host(), semaphore, HALO_SEMAPHORE_MAX_VALUE + 1, 2);
  uint64_t payload = 0;
  StatusHolder status(TestSemaphore::query(semaphore, &payload));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message().rfind("queue signal 2 (value ", 0), 0u)
      << status.message();
  release(semaphore);
}

TEST_F(SubmissionTest, QueueSignalKeepsAnEarlierFailure) {
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
