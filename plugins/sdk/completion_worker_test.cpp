// Unit tests of the completion worker's poll of its owner's long work: it
// runs after every take and at the times it asks for, and never holds up a
// submission posted meanwhile; and of its idle call, once after each run of
// work, after the polls. No test depends on how long anything takes.
#include "halo/sdk/completion_worker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using std::chrono::nanoseconds;

class Plain : public Submission {
 public:
  explicit Plain(const Init& init) : Submission(init) {}
};

Submission* make_plain() {
  return Submission::create<Plain>(testing::fake_host(), nullptr, nullptr,
                                   SubmissionLists{});
}

// An owner whose poll reports long work until |polls_left| runs out.
struct PollingOwner {
  PollingOwner(nanoseconds interval, int polls)
      : interval(interval),
        polls_left(polls),
        worker(&PollingOwner::process, this, nanoseconds(0),
               &PollingOwner::poll) {}

  static void process(void* self, Submission* submission) noexcept {
    auto* owner = static_cast<PollingOwner*>(self);
    Submission::destroy(submission);
    owner->processed_promises[owner->processed.fetch_add(1)].set_value();
  }
  static nanoseconds poll(void* self) noexcept {
    auto* owner = static_cast<PollingOwner*>(self);
    owner->polls_after_processing.store(owner->processed.load());
    if (owner->polls_left.fetch_sub(1) > 1) return owner->interval;
    owner->polled_out.set_value();
    return nanoseconds(0);
  }

  const nanoseconds interval;
  std::atomic<int> polls_left;
  std::atomic<int> processed{0};
  std::atomic<int> polls_after_processing{-1};
  std::promise<void> processed_promises[2];
  std::promise<void> polled_out;
  CompletionWorker worker;
};

using CompletionWorkerTest = testing::LeakCheckedTest;

TEST_F(CompletionWorkerTest, PollRunsAfterATakeAndUntilItHasNothingLeft) {
  PollingOwner owner(nanoseconds(1000), 5);
  owner.worker.start();
  owner.worker.post(make_plain());
  // The take's poll, then four more at the times it asked for, with
  // nothing posted to wake the worker.
  owner.polled_out.get_future().wait();
  EXPECT_EQ(owner.polls_left.load(), 0);
  EXPECT_EQ(owner.polls_after_processing.load(), 1);
  owner.worker.stop();
}

TEST_F(CompletionWorkerTest, LongPolledWorkHoldsUpNoPostedSubmission) {
  // The poll asks to run again in an hour: a post must wake the worker.
  PollingOwner owner(std::chrono::hours(1), 2);
  owner.worker.start();
  owner.worker.post(make_plain());
  owner.processed_promises[0].get_future().wait();
  owner.worker.post(make_plain());
  owner.processed_promises[1].get_future().wait();
  EXPECT_EQ(owner.processed.load(), 2);
  owner.polled_out.get_future().wait();  // The second take's poll.
  owner.worker.stop();
}

// An owner that counts its idle calls and what was processed before each.
struct IdleOwner {
  explicit IdleOwner(CompletionWorker::PollFunction poll = nullptr)
      : worker(&IdleOwner::process, this, nanoseconds(0), poll,
               &IdleOwner::idle) {}

  static void process(void* self, Submission* submission) noexcept {
    Submission::destroy(submission);
    static_cast<IdleOwner*>(self)->processed.fetch_add(1);
  }
  static void idle(void* self) noexcept {
    auto* owner = static_cast<IdleOwner*>(self);
    const int call = owner->idle_calls.fetch_add(1);
    owner->processed_before_idle[call] = owner->processed.load();
    owner->idle_promises[call].set_value();
  }

  std::atomic<int> processed{0};
  std::atomic<int> idle_calls{0};
  int processed_before_idle[2] = {-1, -1};
  std::promise<void> idle_promises[2];
  CompletionWorker worker;
};

TEST_F(CompletionWorkerTest, IdleRunsOnceAfterEachRunOfWork) {
  IdleOwner owner;
  owner.worker.start();
  for (int i = 0; i < 3; ++i) owner.worker.post(make_plain());
  owner.idle_promises[0].get_future().wait();
  EXPECT_EQ(owner.processed_before_idle[0], 3);
  owner.worker.post(make_plain());
  owner.idle_promises[1].get_future().wait();
  EXPECT_EQ(owner.processed_before_idle[1], 4);
  owner.worker.stop();
  // Nothing processed after the second: no third call.
  EXPECT_EQ(owner.idle_calls.load(), 2);
}

std::atomic<int> idle_test_polls_left{0};
nanoseconds poll_three_times(void*) noexcept {
  return idle_test_polls_left.fetch_sub(1) > 1 ? nanoseconds(1000)
                                               : nanoseconds(0);
}

TEST_F(CompletionWorkerTest, IdleWaitsForThePollsToEnd) {
  idle_test_polls_left = 3;
  IdleOwner owner(&poll_three_times);
  owner.worker.start();
  owner.worker.post(make_plain());
  owner.idle_promises[0].get_future().wait();
  EXPECT_LE(idle_test_polls_left.load(), 0);
  owner.worker.stop();
}

}  // namespace
}  // namespace halo::sdk
