// Unit tests of the completion worker's poll of its owner's long work: it
// runs after every take and at the times it asks for, and never holds up a
// submission posted meanwhile. No test depends on how long anything takes.
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
  return Submission::create<Plain>(testing::fake_host(), nullptr, SubmissionLists{});
}

// An owner whose poll reports long work until |polls_left| runs out.
struct PollingOwner {
  PollingOwner(nanoseconds interval, int polls)
      : interval(interval),
        polls_left(polls),
        worker(&PollingOwner::process, this, nanoseconds(0), &PollingOwner::poll) {}

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

}  // namespace
}  // namespace halo::sdk
