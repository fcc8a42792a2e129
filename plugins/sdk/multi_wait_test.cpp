// Unit tests of the multi-semaphore wait (halo::sdk::wait_semaphores) over
// timelines of the SDK, reached through a MultiWaitSemaphores that counts
// what the wait does and can refuse a registration, against a fake host.
#include "halo/sdk/multi_wait.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "halo/sdk/timeline.hpp"
#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

// The pairs' semaphores: one Timeline each.
class Timelines final : public MultiWaitSemaphores {
 public:
  explicit Timelines(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      timelines_.push_back(std::make_unique<Timeline>(fake_host(), 0));
    }
  }
  ~Timelines() {
    if (thread_.joinable()) thread_.join();
  }

  Timeline& operator[](size_t index) { return *timelines_[index]; }

  // Runs |action| on a thread of its own once every pair has a timepoint:
  // the wait is then surely blocked, or about to be.
  void once_registered(std::function<void()> action) { action_ = std::move(action); }
  // Makes acquire_timepoint refuse pair |index| with FAILED_PRECONDITION.
  void refuse(size_t index) { refused_ = index; }
  // Makes acquire_timepoint signal pair |index| to 1 before registering it.
  void reach_before_registering(size_t index) { reached_ = index; }

  int queries() const { return queries_; }
  int acquired() const { return acquired_; }
  int cancelled() const { return cancelled_; }

  halo_status_t query(size_t index, uint64_t* out_payload) noexcept override {
    ++queries_;
    return timelines_[index]->query(out_payload);
  }
  halo_status_t acquire_timepoint(size_t index,
                                  halo_timepoint_t* timepoint) noexcept override {
    if (index == refused_) {
      return fake_host().make_status(HALO_STATUS_FAILED_PRECONDITION,
                                     "pair %zu refused", index);
    }
    ++acquired_;
    if (index == reached_) {
      EXPECT_EQ(timelines_[index]->signal(1), nullptr);
    }
    halo_status_t status = timelines_[index]->acquire(timepoint);
    if (index + 1 == timelines_.size() && action_) thread_ = std::thread(action_);
    return status;
  }
  void cancel_timepoint(size_t index, halo_timepoint_t* timepoint) noexcept override {
    ++cancelled_;
    timelines_[index]->cancel(timepoint);
  }
  // Names the pair, to show that the wait reports what this returns.
  halo_status_t take_failure(size_t index, halo_status_t status) noexcept override {
    const std::string prefix = "pair " + std::to_string(index);
    return fake_host().annotate(status, prefix.c_str());
  }

 private:
  std::vector<std::unique_ptr<Timeline>> timelines_;
  std::function<void()> action_;
  std::thread thread_;
  size_t refused_ = SIZE_MAX;
  size_t reached_ = SIZE_MAX;
  // Touched on the waiting thread only.
  int queries_ = 0;
  int acquired_ = 0;
  int cancelled_ = 0;
};

class MultiWaitTest : public testing::LeakCheckedTest {
 protected:
  // Waits with |mode| for value 1 on each of |timelines|, until |deadline|.
  static halo_status_t wait(halo_wait_mode_t mode, Timelines& timelines, size_t count,
                            halo_time_ns_t deadline) {
    const std::vector<uint64_t> values(count, 1);
    return wait_semaphores(fake_host(), mode, count, values.data(), deadline, timelines);
  }
};

TEST_F(MultiWaitTest, EmptyListIsMetAtOnce) {
  Timelines timelines(0);
  EXPECT_EQ(wait(HALO_WAIT_MODE_ALL, timelines, 0, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  EXPECT_EQ(timelines.queries(), 0);
}

TEST_F(MultiWaitTest, PollQueriesEveryPairAndRegistersNothing) {
  Timelines timelines(3);
  ASSERT_EQ(timelines[1].signal(1), nullptr);
  EXPECT_EQ(wait(HALO_WAIT_MODE_ANY, timelines, 3, HALO_DEADLINE_INFINITE_PAST), nullptr);
  const long allocations = testing::total_allocations();
  StatusHolder missed(wait(HALO_WAIT_MODE_ALL, timelines, 3, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(missed.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  EXPECT_EQ(testing::total_allocations(), allocations);
  EXPECT_EQ(timelines.queries(), 6);
  EXPECT_EQ(timelines.acquired(), 0);
}

// ANY is met by the first pair, yet the failure listed after it wins.
TEST_F(MultiWaitTest, AFailureAnywhereWinsOverAReachedPair) {
  Timelines timelines(2);
  ASSERT_EQ(timelines[0].signal(1), nullptr);
  timelines[1].fail(fake_host().make_status_text(HALO_STATUS_DATA_LOSS, "lost"));
  StatusHolder status(wait(HALO_WAIT_MODE_ANY, timelines, 2, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(status.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(status.message(), "lost");
}

TEST_F(MultiWaitTest, AllBlocksUntilEveryPairIsReached) {
  Timelines timelines(3);
  timelines.once_registered([&] {
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(timelines[i].signal(1), nullptr);
  });
  EXPECT_EQ(wait(HALO_WAIT_MODE_ALL, timelines, 3, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  EXPECT_EQ(timelines.acquired(), 3);
  EXPECT_EQ(timelines.cancelled(), 3);
}

TEST_F(MultiWaitTest, AnyBlocksUntilOnePairIsReached) {
  Timelines timelines(3);
  timelines.once_registered([&] { EXPECT_EQ(timelines[2].signal(1), nullptr); });
  EXPECT_EQ(wait(HALO_WAIT_MODE_ANY, timelines, 3, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  EXPECT_EQ(timelines.cancelled(), 3);
}

// More pairs than the wait keeps on its stack: the rest comes from the host
// and goes back to it (the fixture checks).
TEST_F(MultiWaitTest, ManyPairsBlockThroughHostMemory) {
  constexpr size_t kCount = 20;
  Timelines timelines(kCount);
  timelines.once_registered([&] {
    for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(timelines[i].signal(1), nullptr);
  });
  EXPECT_EQ(wait(HALO_WAIT_MODE_ALL, timelines, kCount, HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  EXPECT_EQ(timelines.cancelled(), static_cast<int>(kCount));
}

TEST_F(MultiWaitTest, AFailureCalledBackIsReportedThroughTakeFailure) {
  Timelines timelines(2);
  timelines.once_registered([&] {
    timelines[1].fail(fake_host().make_status_text(HALO_STATUS_DATA_LOSS, "lost"));
    // Whether the wait still sees this second failure or has cancelled
    // its timepoint first, the first failure is the one reported.
    timelines[0].fail(fake_host().make_status_text(HALO_STATUS_ABORTED, "too late"));
  });
  StatusHolder status(wait(HALO_WAIT_MODE_ALL, timelines, 2, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(status.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(status.message(), "pair 1: lost");
}

// A semaphore that will not take a timepoint could never wake the wait: it
// ends at once with the refusal, and what was registered is cancelled.
TEST_F(MultiWaitTest, ARefusedTimepointEndsTheWaitWithTheRefusal) {
  Timelines timelines(3);
  timelines.refuse(1);
  StatusHolder status(wait(HALO_WAIT_MODE_ALL, timelines, 3, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(status.code(), HALO_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(status.message(), "pair 1 refused");
  EXPECT_EQ(timelines.acquired(), 1);
  EXPECT_EQ(timelines.cancelled(), 1);
}

// ... unless what was registered meets the wait already: here pair 0 is
// reached after the poll, just before its timepoint is registered.
TEST_F(MultiWaitTest, ARefusedTimepointLosesToAMetWait) {
  Timelines timelines(2);
  timelines.reach_before_registering(0);
  timelines.refuse(1);
  EXPECT_EQ(wait(HALO_WAIT_MODE_ANY, timelines, 2, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  EXPECT_EQ(timelines.cancelled(), 1);
}

TEST_F(MultiWaitTest, TheDeadlineEndsABlockedWait) {
  Timelines timelines(2);
  ASSERT_EQ(timelines[0].signal(1), nullptr);
  StatusHolder status(
      wait(HALO_WAIT_MODE_ALL, timelines, 2, fake_host().now() + 1000000));
  EXPECT_EQ(status.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  EXPECT_EQ(timelines.acquired(), 2);
  EXPECT_EQ(timelines.cancelled(), 2);
}

}  // namespace
}  // namespace halo::sdk
