// Fences and wait handles when memory runs out: each allocation their calls
// make fails once, in turn, and each time the call returns
// RESOURCE_EXHAUSTED with nothing changed or leaked (ASan's leak check and
// the fd count), never a crash.
#include <dirent.h>

#include "failing_new.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

// The process's open file descriptors.
int open_fd_count() {
  DIR* folder = opendir("/proc/self/fd");
  if (folder == nullptr) return -1;
  int count = 0;
  while (readdir(folder) != nullptr) ++count;
  closedir(folder);
  return count;
}

// Runs |call| with the 0th, 1st, … allocation failing until one run
// reaches no failing allocation; every run that did must have returned
// RESOURCE_EXHAUSTED. Returns how many runs failed.
template <typename Call>
int fail_each_allocation(Call call) {
  for (long index = 0;; ++index) {
    halo_status_t status = nullptr;
    bool triggered = false;
    {
      AllocationFailure failure(index);
      status = call();
      triggered = failure.triggered();
    }
    if (!triggered) {
      EXPECT_EQ(status, nullptr) << "with no allocation failing";
      halo_status_free(status);
      return static_cast<int>(index);
    }
    expect_status(status, HALO_STATUS_RESOURCE_EXHAUSTED);
  }
}

class FenceAllocFailureTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    ASSERT_EQ(registry_.driver_count(), 1u) << describe(registry_.plugins());
    device_ = registry_.create_device(0);
  }

  halo::Registry registry_;
  halo::Device device_;
};

TEST_F(FenceAllocFailureTest, CreateAndInsert) {
  halo_fence_t* fence = nullptr;
  EXPECT_GT(fail_each_allocation([&] { return halo_fence_create(&fence); }), 0);
  const halo::Fence owned(fence);
  const halo::Semaphore first = device_.create_semaphore();
  const halo::Semaphore second = device_.create_semaphore();
  owned.insert(first, 1);
  EXPECT_GT(fail_each_allocation([&] { return halo_fence_insert(fence, second.get(), 2); }), 0);
  ASSERT_EQ(owned.timepoints().size(), 2u);
}

TEST_F(FenceAllocFailureTest, WaitHandleLeavesNoFdBehind) {
  const halo::Fence fence = halo::Fence::create();
  fence.insert(device_.create_semaphore(), 1).insert(device_.create_semaphore(), 1);
  const int fds_before = open_fd_count();
  halo_wait_handle_t* handle = nullptr;
  EXPECT_GT(fail_each_allocation(
                [&] { return halo_fence_create_wait_handle(fence.get(), &handle); }),
            0);
  halo_wait_handle_destroy(handle);
  EXPECT_EQ(open_fd_count(), fds_before);
}

TEST_F(FenceAllocFailureTest, WaitAndQueueExecute) {
  const halo::Semaphore gate = device_.create_semaphore(1);
  const halo::Fence waits = halo::Fence::at(gate, 1);
  const halo::Fence signals = halo::Fence::at(device_.create_semaphore(), 1);
  EXPECT_GT(fail_each_allocation(
                [&] { return halo_fence_wait(waits.get(), HALO_DEADLINE_INFINITE_PAST); }),
            0);
  // On an error nothing is submitted, so only the last run signals.
  EXPECT_GT(fail_each_allocation([&] {
              return halo_device_queue_execute_fences(device_.get(), HALO_QUEUE_AFFINITY_ANY,
                                                      waits.get(), signals.get(), 0, nullptr);
            }),
            0);
  EXPECT_TRUE(signals.wait());
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
