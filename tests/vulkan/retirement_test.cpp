// Semaphores a submission waited on natively, released right after the work
// completed. The driver may still hold such a VkSemaphore then: lavapipe's
// queue thread lets go of a batch's waits only after the batch's signals
// show. So the plugin keeps it until a later submission on the queue has
// completed, or until the device goes (plugins/vulkan/retirement.cpp).
//
// ReleaseAfterWork repeats what crashed processes on lavapipe: a device, a
// semaphore one submission signals and the next waits on, wait_idle, then
// everything released at once. SemaphoreCensus, which CTest runs under a
// layer that counts the VkSemaphores created and destroyed
// (vulkan_census), checks when exactly the plugin destroys one.
#include <dlfcn.h>

#include <cstdlib>
#include <thread>
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

// Submits, on |device|, an execution without command buffers that waits for
// |wait| (when not NULL) to reach |wait_value| and signals |signal| with
// |signal_value|.
halo_status_t execute(halo_device_t* device, halo_semaphore_t* wait,
                      uint64_t wait_value, halo_semaphore_t* signal,
                      uint64_t signal_value) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = wait != nullptr ? 1 : 0;
  info.wait_semaphores = &wait;
  info.wait_values = &wait_value;
  info.signal_count = 1;
  info.signal_semaphores = &signal;
  info.signal_values = &signal_value;
  return halo_device_queue_execute(device, &info);
}

// On |device|: a submission signals |first| = 1, and the next one waits for
// it on the GPU and signals |second| = 1.
void signal_then_wait(halo_device_t* device, halo_semaphore_t* first,
                      halo_semaphore_t* second) {
  HALO_ASSERT_OK(execute(device, nullptr, 0, first, 1));
  HALO_ASSERT_OK(execute(device, first, 1, second, 1));
}

using ReleaseAfterWork = VulkanTest;

// A semaphore of |device| at 0 (NULL, with a test failure, if it fails).
SemaphorePtr new_semaphore(halo_device_t* device) {
  halo_semaphore_t* semaphore = nullptr;
  HALO_EXPECT_OK(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE,
                                       &semaphore));
  return SemaphorePtr(semaphore);
}

// |rounds| times: a device of |driver|'s device |device_id|, two semaphores
// through signal_then_wait, wait_idle, and then everything released.
void release_right_after_work(halo_driver_t* driver, uint64_t device_id,
                              int rounds) {
  for (int round = 0; round < rounds; ++round) {
    halo_device_t* raw = nullptr;
    HALO_ASSERT_OK(halo_driver_create_device(driver, device_id, nullptr, &raw));
    DevicePtr device(raw);
    SemaphorePtr first = new_semaphore(device.get());
    SemaphorePtr second = new_semaphore(device.get());
    ASSERT_TRUE(first != nullptr && second != nullptr);
    signal_then_wait(device.get(), first.get(), second.get());
    HALO_ASSERT_OK(
        halo_device_wait_idle(device.get(), deadline_in_ms(kGenerousMs)));
    first.reset();
    second.reset();
    device.reset();
  }
}

TEST_F(ReleaseAfterWork, EverythingMayGoAsSoonAsTheDeviceIsIdle) {
  // Two threads, each with devices of its own, keep both cores busy so
  // that the driver's queue thread is often held up between a submission's
  // signals and its waits' release. Before the plugin kept such semaphores,
  // that thread then locked a freed semaphore (most often while the device
  // was being destroyed) and crashed the process within a few hundred
  // rounds.
  // A sanitizer does not see into the driver, where the crash was, so
  // under one the rounds only take the plugin's own paths, which a few do,
  // while each device costs fifty to a hundred times as much.
  constexpr int kThreads = 2;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int kRounds = 20;
#else
  constexpr int kRounds = 500;
#endif
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back(release_right_after_work, driver(), info().device_id,
                         kRounds);
  }
  for (std::thread& thread : threads) thread.join();
}

class SemaphoreCensus : public VulkanTest {
 protected:
  struct Counts {
    uint64_t created = 0;
    uint64_t destroyed = 0;
  };

  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const char* layer = std::getenv("HALO_TEST_SEMAPHORE_CENSUS");
    if (layer == nullptr) {
      GTEST_SKIP() << "runs under the layer VK_LAYER_HALO_test_semaphore_"
                      "census, as CTest does (vulkan_census)";
    }
    // The copy the Vulkan loader opened, or nothing.
    library_ = dlopen(layer, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library_, nullptr)
        << layer << " is not loaded: is VK_LAYER_HALO_test_semaphore_census "
        << "active?";
    census_ = reinterpret_cast<Census>(
        dlsym(library_, "halo_test_semaphore_census"));
    ASSERT_NE(census_, nullptr) << dlerror();
  }

  void TearDown() override {
    VulkanTest::TearDown();
    if (library_ != nullptr) dlclose(library_);
  }

  Counts counts() const {
    Counts counts;
    census_(&counts.created, &counts.destroyed);
    return counts;
  }

  halo_status_t wait_idle(halo_device_t* on = nullptr) {
    return halo_device_wait_idle(on != nullptr ? on : device(),
                                 deadline_in_ms(kGenerousMs));
  }

 private:
  using Census = void (*)(uint64_t*, uint64_t*);
  void* library_ = nullptr;
  Census census_ = nullptr;
};

TEST_F(SemaphoreCensus, NativelyWaitedSemaphoreLastsUntilALaterCompletion) {
  SemaphorePtr first = make_semaphore(), second = make_semaphore();
  signal_then_wait(device(), first.get(), second.get());
  HALO_ASSERT_OK(wait_idle());
  const uint64_t destroyed = counts().destroyed;
  // Signalled on the GPU but never waited on there: it goes at once.
  second.reset();
  EXPECT_EQ(counts().destroyed, destroyed + 1);
  // Waited on by the last submission that completed: the driver may still
  // hold it.
  first.reset();
  EXPECT_EQ(counts().destroyed, destroyed + 1);
  // A later submission's completion proves the driver done with it; it
  // goes before that submission counts as finished.
  SemaphorePtr later = make_semaphore();
  HALO_ASSERT_OK(execute(device(), nullptr, 0, later.get(), 1));
  HALO_ASSERT_OK(wait_idle());
  EXPECT_EQ(counts().destroyed, destroyed + 2);
}

TEST_F(SemaphoreCensus, DeviceTeardownDestroysEverySemaphoreItKept) {
  const Counts before = counts();
  {
    halo_device_t* raw = nullptr;
    HALO_ASSERT_OK(
        halo_driver_create_device(driver(), info().device_id, nullptr, &raw));
    DevicePtr device(raw);
    SemaphorePtr first = make_semaphore(0, device.get());
    SemaphorePtr second = make_semaphore(0, device.get());
    signal_then_wait(device.get(), first.get(), second.get());
    // Released while in flight: the submissions drop the last references,
    // on the queue's notification thread.
    first.reset();
    second.reset();
    HALO_ASSERT_OK(wait_idle(device.get()));
    // The device's own two (wake and completion) and the two above, of
    // which only the one never waited on is gone.
    EXPECT_EQ(counts().created - before.created, 4u);
    EXPECT_EQ(counts().destroyed - before.destroyed, 1u);
  }
  // The submissions' references to the device go on the notification
  // thread, which destroys the device when it drops the last one.
  EXPECT_TRUE(spin_until(
      [&] { return counts().destroyed - before.destroyed == 4u; }))
      << counts().destroyed - before.destroyed << " of 4 destroyed";
}

}  // namespace
}  // namespace halo_vulkan_test
