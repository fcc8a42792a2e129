// halo_semaphores_wait blocking on semaphores of different devices, where
// libhalo waits through a timepoint on each (the plugin SDK's multi-wait):
// another thread's signal or failure ends the wait, and so does the
// deadline. Two devices of the cpu plugin make such a mix; multi_wait_test
// covers the polls before it blocks.
#include <thread>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

class MultiWaitBlockingTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    ASSERT_EQ(registry_.driver_count(), 1u) << describe(registry_.plugins());
    first_ = registry_.create_device(0);
    second_ = registry_.create_device(0);
    ASSERT_NE(first_.get(), second_.get()) << "two devices are needed for a mix";
    semaphores_ = {first_.create_semaphore(0), second_.create_semaphore(0)};
  }

  // Waits on every semaphore for value 1, with |mode| and |deadline|.
  halo_status_t wait(halo_wait_mode_t mode, halo_time_ns_t deadline) {
    std::vector<halo_semaphore_t*> handles;
    for (const auto& semaphore : semaphores_) handles.push_back(semaphore.get());
    const std::vector<uint64_t> values(handles.size(), 1);
    return halo_semaphores_wait(mode, handles.size(), handles.data(), values.data(),
                                deadline);
  }

  halo::Registry registry_;
  halo::Device first_;
  halo::Device second_;
  std::vector<halo::Semaphore> semaphores_;
};

TEST_F(MultiWaitBlockingTest, AllEndsOnceAnotherThreadSignalsEverySemaphore) {
  std::thread signaller([&] {
    for (const auto& semaphore : semaphores_) semaphore.signal(1);
  });
  EXPECT_EQ(wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  signaller.join();
}

TEST_F(MultiWaitBlockingTest, AnyEndsOnceAnotherThreadSignalsOneSemaphore) {
  std::thread signaller([&] { semaphores_[1].signal(1); });
  EXPECT_EQ(wait(HALO_WAIT_MODE_ANY, HALO_DEADLINE_INFINITE_FUTURE), nullptr);
  signaller.join();
}

TEST_F(MultiWaitBlockingTest, AFailureOnAnotherThreadEndsTheWaitWithIt) {
  std::thread failer([&] { semaphores_[1].fail(HALO_STATUS_DATA_LOSS, "lost in flight"); });
  expect_status(wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_FUTURE),
                HALO_STATUS_DATA_LOSS, "lost in flight");
  failer.join();
}

TEST_F(MultiWaitBlockingTest, TheDeadlineEndsAWaitNothingMeets) {
  semaphores_[0].signal(1);
  expect_status(wait(HALO_WAIT_MODE_ALL, halo_deadline_after_ns(1000000)),
                HALO_STATUS_DEADLINE_EXCEEDED);
  // Nothing of the wait is left registered: the semaphores go on as usual.
  semaphores_[1].signal(1);
  EXPECT_EQ(wait(HALO_WAIT_MODE_ALL, HALO_DEADLINE_INFINITE_PAST), nullptr);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
