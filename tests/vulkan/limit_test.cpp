// The device's maxTimelineSemaphoreValueDifference: the plugin reports it
// and refuses host signals and queue submissions that would exceed it
// (Vulkan forbids them), while host waits and foreign semaphores are not
// limited by it. Lavapipe has no limit, so CTest runs these tests
// (vulkan_limits) under the test layer that lowers it, with
// HALO_TEST_TIMELINE_LIMIT naming the value the layer reports; elsewhere
// they skip on a device without a limit.
#include <cstdlib>
#include <string>
#include <thread>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

std::string text(uint64_t value) { return std::to_string(value); }

class TimelineLimit : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    limit_ = capabilities().max_semaphore_value_difference;
    const char* expected = std::getenv("HALO_TEST_TIMELINE_LIMIT");
    if (expected != nullptr) {
      // The layer is active: the plugin must report what the device does.
      ASSERT_EQ(limit_, std::strtoull(expected, nullptr, 10))
          << "is the test layer VK_LAYER_HALO_test_timeline_limit active?";
    } else if (limit_ == HALO_SEMAPHORE_MAX_VALUE) {
      GTEST_SKIP() << "the device has no timeline difference limit; CTest "
                      "runs these tests under a layer that sets one "
                      "(vulkan_limits)";
    }
  }

  uint64_t limit_ = 0;
};

TEST_F(TimelineLimit, HostSignalsStayWithinTheLimit) {
  SemaphorePtr semaphore = make_semaphore(0);
  Status far(halo_semaphore_signal(semaphore.get(), limit_ + 1));
  expect_status(far, HALO_STATUS_INVALID_ARGUMENT,
                {"halo_semaphore_signal: value " + text(limit_ + 1),
                 "max_semaphore_value_difference " + text(limit_),
                 "above the payload 0"});
  uint64_t value = 99;
  HALO_ASSERT_OK(halo_semaphore_query(semaphore.get(), &value));
  EXPECT_EQ(value, 0u);
  // Exactly the limit is allowed, and the limit counts from the payload.
  HALO_ASSERT_OK(halo_semaphore_signal(semaphore.get(), limit_));
  Status again(halo_semaphore_signal(semaphore.get(), 2 * limit_ + 1));
  expect_status(again, HALO_STATUS_INVALID_ARGUMENT,
                {"halo_semaphore_signal: value " + text(2 * limit_ + 1),
                 "above the payload " + text(limit_)});
  HALO_ASSERT_OK(halo_semaphore_signal(semaphore.get(), 2 * limit_));
  HALO_ASSERT_OK(halo_semaphore_query(semaphore.get(), &value));
  EXPECT_EQ(value, 2 * limit_);
}

TEST_F(TimelineLimit, SubmissionValuesStayWithinTheLimit) {
  SemaphorePtr own = make_semaphore(0), other = make_semaphore(0),
               out = make_semaphore(0);
  Status wait_far(submit(nullptr, {own.get()}, {limit_ + 1}, {out.get()}, {1}));
  expect_status(
      wait_far, HALO_STATUS_INVALID_ARGUMENT,
      {"halo_device_queue_execute: info->wait_values[0] " + text(limit_ + 1),
       "max_semaphore_value_difference " + text(limit_),
       "above the payload 0"});
  Status signal_far(
      submit(nullptr, {}, {}, {out.get(), own.get()}, {1, limit_ + 1}));
  expect_status(signal_far, HALO_STATUS_INVALID_ARGUMENT,
                {"halo_device_queue_execute: info->signal_values[1] " +
                 text(limit_ + 1)});
  // The refused submissions left nothing behind to run or signal.
  HALO_ASSERT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
  uint64_t value = 99;
  HALO_ASSERT_OK(halo_semaphore_query(out.get(), &value));
  EXPECT_EQ(value, 0u);

  // Exactly the limit is accepted, and waits until the host gets there.
  HALO_ASSERT_OK(submit(nullptr, {own.get()}, {limit_}, {out.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_signal(other.get(), 1));
  Status early(halo_semaphore_wait(out.get(), 1, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(early.code(), HALO_STATUS_DEADLINE_EXCEEDED) << early.describe();
  HALO_ASSERT_OK(halo_semaphore_signal(own.get(), limit_));
  HALO_ASSERT_OK(wait(out.get(), 1));
  // The limit counts from the payload now reached.
  HALO_ASSERT_OK(submit(nullptr, {own.get()}, {2 * limit_}, {out.get()}, {2}));
  HALO_ASSERT_OK(halo_semaphore_signal(own.get(), 2 * limit_));
  HALO_ASSERT_OK(wait(out.get(), 2));
}

TEST_F(TimelineLimit, ForeignSemaphoresAreNotLimited) {
  // A cpu semaphore never reaches Vulkan: the host waits on it for the
  // submission, whatever the distance.
  SemaphorePtr foreign = make_semaphore(0, cpu_device());
  SemaphorePtr out = make_semaphore(0);
  const uint64_t far = 4 * limit_;
  HALO_ASSERT_OK(submit(nullptr, {foreign.get()}, {far}, {out.get()}, {1}));
  HALO_ASSERT_OK(submit(nullptr, {out.get()}, {1}, {foreign.get()}, {far + 1}));
  HALO_ASSERT_OK(halo_semaphore_signal(foreign.get(), far));
  HALO_ASSERT_OK(wait(foreign.get(), far + 1));
  HALO_ASSERT_OK(wait(out.get(), 1));
}

TEST_F(TimelineLimit, HostWaitsAreNotLimited) {
  // Vulkan puts no limit on host waits: a wait past the limit returns when
  // signals within it get there one step at a time.
  SemaphorePtr semaphore = make_semaphore(0);
  Status poll(halo_semaphore_wait(semaphore.get(), 2 * limit_,
                                  HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(poll.code(), HALO_STATUS_DEADLINE_EXCEEDED) << poll.describe();
  halo_status_t waited = nullptr;
  std::thread waiter([&] { waited = wait(semaphore.get(), 2 * limit_); });
  Status first(halo_semaphore_signal(semaphore.get(), limit_));
  Status second(halo_semaphore_signal(semaphore.get(), 2 * limit_));
  waiter.join();
  Status result(waited);
  EXPECT_TRUE(first.ok()) << first.describe();
  EXPECT_TRUE(second.ok()) << second.describe();
  EXPECT_TRUE(result.ok()) << result.describe();
}

}  // namespace
}  // namespace halo_vulkan_test
