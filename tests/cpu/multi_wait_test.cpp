// halo_semaphores_wait (ALL and ANY) over cpu semaphores.
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"

namespace halo_cpu_test {
namespace {

class MultiWaitTest : public CpuTest {
 protected:
  // Waits on every semaphore of |semaphores| for |value|.
  Status wait(halo_wait_mode_t mode,
              const std::vector<SemaphorePtr>& semaphores, uint64_t value,
              halo_time_ns_t deadline) {
    std::vector<halo_semaphore_t*> handles;
    for (const auto& semaphore : semaphores) handles.push_back(semaphore.get());
    std::vector<uint64_t> values(handles.size(), value);
    return Status(halo_semaphores_wait(mode, handles.size(), handles.data(),
                                       values.data(), deadline));
  }
};

TEST_F(MultiWaitTest, EmptyListIsOkAtOnce) {
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    HALO_EXPECT_OK(halo_semaphores_wait(mode, 0, nullptr, nullptr,
                                        HALO_DEADLINE_INFINITE_FUTURE));
  }
}

// ALL and ANY over 1, 2 and 100 semaphores, each signalled by another
// thread after the wait may have started.
TEST_F(MultiWaitTest, AllAndAnyOverOneTwoAndHundredSemaphores) {
  for (size_t count : {1, 2, 100}) {
    for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
      std::vector<SemaphorePtr> semaphores = make_semaphores(count);
      std::thread signaller([&] {
        // ANY needs one; signal them all so ALL completes too.
        for (auto& semaphore : semaphores) {
          HALO_EXPECT_OK(halo_semaphore_signal(semaphore.get(), 1));
        }
      });
      Status status =
          wait(mode, semaphores, 1, HALO_DEADLINE_INFINITE_FUTURE);
      EXPECT_TRUE(status.ok()) << status.describe() << " count " << count;
      signaller.join();
    }
  }
}

TEST_F(MultiWaitTest, AnyReturnsWhenOnlyOneIsSignalled) {
  std::vector<SemaphorePtr> semaphores = make_semaphores(5);
  std::thread signaller(
      [&] { HALO_EXPECT_OK(halo_semaphore_signal(semaphores[3].get(), 1)); });
  Status status =
      wait(HALO_WAIT_MODE_ANY, semaphores, 1, HALO_DEADLINE_INFINITE_FUTURE);
  EXPECT_TRUE(status.ok()) << status.describe();
  signaller.join();
}

TEST_F(MultiWaitTest, AnyWithOneAlreadySignalled) {
  std::vector<SemaphorePtr> semaphores = make_semaphores(3);
  HALO_ASSERT_OK(halo_semaphore_signal(semaphores[1].get(), 1));
  for (halo_time_ns_t deadline :
       {HALO_DEADLINE_INFINITE_PAST, HALO_DEADLINE_INFINITE_FUTURE}) {
    Status status = wait(HALO_WAIT_MODE_ANY, semaphores, 1, deadline);
    EXPECT_TRUE(status.ok()) << status.describe();
  }
}

TEST_F(MultiWaitTest, AllWithOneShortExceedsTheDeadline) {
  std::vector<SemaphorePtr> semaphores = make_semaphores(3);
  HALO_ASSERT_OK(halo_semaphore_signal(semaphores[0].get(), 2));
  HALO_ASSERT_OK(halo_semaphore_signal(semaphores[2].get(), 2));
  HALO_ASSERT_OK(halo_semaphore_signal(semaphores[1].get(), 1));
  Status polled = wait(HALO_WAIT_MODE_ALL, semaphores, 2,
                       HALO_DEADLINE_INFINITE_PAST);
  EXPECT_EQ(polled.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  Status timed = wait(HALO_WAIT_MODE_ALL, semaphores, 2, deadline_in_ms(1));
  EXPECT_EQ(timed.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  HALO_ASSERT_OK(halo_semaphore_signal(semaphores[1].get(), 2));
  Status done = wait(HALO_WAIT_MODE_ALL, semaphores, 2,
                     HALO_DEADLINE_INFINITE_PAST);
  EXPECT_TRUE(done.ok()) << done.describe();
}

TEST_F(MultiWaitTest, AnyNoneSignalledExceedsTheDeadline) {
  std::vector<SemaphorePtr> semaphores = make_semaphores(4);
  Status polled =
      wait(HALO_WAIT_MODE_ANY, semaphores, 1, HALO_DEADLINE_INFINITE_PAST);
  EXPECT_EQ(polled.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  Status timed = wait(HALO_WAIT_MODE_ANY, semaphores, 1, deadline_in_ms(1));
  EXPECT_EQ(timed.code(), HALO_STATUS_DEADLINE_EXCEEDED);
}

TEST_F(MultiWaitTest, AFailedSemaphoreReturnsItsFailure) {
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    std::vector<SemaphorePtr> semaphores = make_semaphores(3);
    std::thread failer([&] {
      HALO_EXPECT_OK(halo_semaphore_fail(
          semaphores[2].get(),
          halo_status_create(HALO_STATUS_ABORTED, "multi failure")));
    });
    Status status = wait(mode, semaphores, 1, HALO_DEADLINE_INFINITE_FUTURE);
    EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
    EXPECT_EQ(status.message(), "multi failure");
    failer.join();
    Status polled = wait(mode, semaphores, 1, HALO_DEADLINE_INFINITE_PAST);
    EXPECT_EQ(polled.code(), HALO_STATUS_ABORTED);
  }
}

TEST_F(MultiWaitTest, AllWaitsForDifferentValues) {
  std::vector<SemaphorePtr> semaphores = make_semaphores(3);
  std::vector<halo_semaphore_t*> handles = {
      semaphores[0].get(), semaphores[1].get(), semaphores[2].get()};
  std::vector<uint64_t> values = {1, 5, 9};
  std::thread signaller([&] {
    for (size_t i = 0; i < handles.size(); ++i) {
      HALO_EXPECT_OK(halo_semaphore_signal(handles[i], values[i]));
    }
  });
  HALO_EXPECT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, handles.size(),
                                      handles.data(), values.data(),
                                      HALO_DEADLINE_INFINITE_FUTURE));
  signaller.join();
  for (size_t i = 0; i < handles.size(); ++i) {
    EXPECT_GE(query(handles[i]), values[i]);
  }
}

}  // namespace
}  // namespace halo_cpu_test
