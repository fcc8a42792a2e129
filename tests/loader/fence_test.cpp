// Fences and wait handles (halo/fence.h) over semaphores of two cpu devices
// and of halo-cts's reference peer, a second plugin with host semaphores:
// fences are libhalo's own objects, so the mixes are the point. Threads signal while another waits
// or polls; nothing sleeps.
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "two_plugin_test.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN) && defined(HALO_TEST_PEER_LIBRARY)

// True when |handle|'s fd is readable within |timeout_ms| (0: now).
bool readable(const halo::WaitHandle& handle, int timeout_ms) {
  pollfd entry = {handle.fd(), POLLIN, 0};
  return poll(&entry, 1, timeout_ms) == 1 && (entry.revents & POLLIN) != 0;
}

using FenceTest = TwoPluginTest;

TEST_F(FenceTest, InsertKeepsTheLargestValuePerSemaphore) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 3).insert(b, 2).insert(a, 1).insert(a, 5);
  const auto timepoints = fence.timepoints();
  ASSERT_EQ(timepoints.size(), 2u);
  EXPECT_EQ(timepoints[0].first, a);
  EXPECT_EQ(timepoints[0].second, 5u);
  EXPECT_EQ(timepoints[1].first, b);
  EXPECT_EQ(timepoints[1].second, 2u);
}

TEST_F(FenceTest, TimepointsCopyOnlyWhatFits) {
  const halo::Fence fence = halo::Fence::create();
  fence.insert(cpu_.create_semaphore(), 1).insert(peer_.create_semaphore(), 2);
  halo_semaphore_t* semaphores[1] = {};
  uint64_t values[1] = {};
  size_t count = 0;
  ASSERT_EQ(halo_fence_timepoints(fence.get(), 1, semaphores, values, &count), nullptr);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(values[0], 1u);
}

// The fence keeps its semaphores: released by the application, they are
// still there to wait on and signal.
TEST_F(FenceTest, HoldsItsSemaphores) {
  const halo::Fence fence = halo::Fence::create();
  fence.insert(cpu_.create_semaphore(), 1).insert(peer_.create_semaphore(), 1);
  EXPECT_FALSE(fence.reached());
  fence.signal();
  EXPECT_TRUE(fence.wait(HALO_DEADLINE_INFINITE_PAST));
}

TEST_F(FenceTest, JoinUnitesAndKeepsMaxima) {
  const halo::Semaphore shared = cpu_.create_semaphore();
  const halo::Semaphore own = peer_.create_semaphore();
  const halo::Fence first = halo::Fence::create();
  first.insert(shared, 4);
  const halo::Fence second = halo::Fence::create();
  second.insert(shared, 7).insert(own, 1);
  first.join(second).join(first);
  const auto timepoints = first.timepoints();
  ASSERT_EQ(timepoints.size(), 2u);
  EXPECT_EQ(timepoints[0].second, 7u);
  EXPECT_EQ(timepoints[1].first, own);
}

TEST_F(FenceTest, ReachedOnlyWhenEveryPluginsSemaphoreIs) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = other_cpu_.create_semaphore();
  const halo::Semaphore c = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 1).insert(b, 1).insert(c, 1);
  a.signal(1);
  b.signal(1);
  EXPECT_FALSE(fence.reached());
  EXPECT_FALSE(fence.wait(HALO_DEADLINE_INFINITE_PAST));
  std::thread signaller([&] { c.signal(2); });
  EXPECT_TRUE(fence.wait());
  signaller.join();
  EXPECT_TRUE(fence.reached());
}

// A member's failure is the fence's, code and message, before pending ones.
TEST_F(FenceTest, FailureOfAnyMemberIsTheFences) {
  const halo::Semaphore pending = cpu_.create_semaphore();
  const halo::Semaphore failed = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(pending, 1).insert(failed, 1);
  failed.fail(HALO_STATUS_DATA_LOSS, "the frame was lost");
  bool reached = true;
  expect_status(halo_fence_query(fence.get(), &reached), HALO_STATUS_DATA_LOSS,
                "the frame was lost");
  EXPECT_FALSE(reached);
  expect_status(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_FUTURE),
                HALO_STATUS_DATA_LOSS, "the frame was lost");
  expect_status(halo_fence_signal(fence.get()), HALO_STATUS_DATA_LOSS,
                "the frame was lost");
  // signal still brought the other member to its value.
  EXPECT_EQ(pending.query(), 1u);
}

TEST_F(FenceTest, SignalLeavesASemaphorePastItsValue) {
  const halo::Semaphore behind = cpu_.create_semaphore(1);
  const halo::Semaphore ahead = peer_.create_semaphore(9);
  const halo::Fence fence = halo::Fence::create();
  fence.insert(behind, 4).insert(ahead, 5);
  fence.signal();
  EXPECT_EQ(behind.query(), 4u);
  EXPECT_EQ(ahead.query(), 9u);
}

TEST_F(FenceTest, EmptyFenceIsReached) {
  const halo::Fence fence = halo::Fence::create();
  EXPECT_TRUE(fence.reached());
  EXPECT_TRUE(fence.wait(HALO_DEADLINE_INFINITE_PAST));
  fence.signal();
  const halo::WaitHandle handle = fence.wait_handle();
  EXPECT_TRUE(readable(handle, 0));
  EXPECT_TRUE(handle.ready());
}

// A submission's wait and signal lists from fences: the signal fence is
// reached only after the wait fence's host signal.
TEST_F(FenceTest, QueueExecuteWaitsAndSignalsFences) {
  const halo::Semaphore gate = peer_.create_semaphore();
  const halo::Semaphore done = cpu_.create_semaphore();
  const halo::Semaphore also_done = cpu_.create_semaphore();
  const halo::Fence waits = halo::Fence::at(gate, 1);
  const halo::Fence signals = halo::Fence::at(done, 1);
  signals.insert(also_done, 2);
  cpu_.queue_execute(waits, signals);
  EXPECT_FALSE(signals.reached());
  gate.signal(1);
  EXPECT_TRUE(signals.wait());
  EXPECT_EQ(also_done.query(), 2u);
  // No fences at all: an empty barrier.
  ASSERT_EQ(halo_device_queue_execute_fences(cpu_.get(), HALO_QUEUE_AFFINITY_ANY, nullptr,
                                             nullptr, 0, nullptr),
            nullptr);
}

TEST_F(FenceTest, WaitHandleBecomesReadableWhenEveryMemberIsReached) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 1).insert(b, 1);
  const halo::WaitHandle handle = fence.wait_handle();
  EXPECT_FALSE(readable(handle, 0));
  EXPECT_FALSE(handle.ready());
  a.signal(1);
  EXPECT_FALSE(readable(handle, 0));
  std::thread signaller([&] { b.signal(1); });
  EXPECT_TRUE(readable(handle, -1));
  signaller.join();
  EXPECT_TRUE(handle.ready());
  // It stays readable: nothing resets it.
  EXPECT_TRUE(readable(handle, 0));
}

TEST_F(FenceTest, WaitHandleReportsAFailure) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 1).insert(b, 1);
  const halo::WaitHandle handle = fence.wait_handle();
  std::thread failer([&] { b.fail(HALO_STATUS_ABORTED, "decoder stopped"); });
  EXPECT_TRUE(readable(handle, -1));
  failer.join();
  bool ready = false;
  expect_status(halo_wait_handle_status(handle.get(), &ready), HALO_STATUS_ABORTED,
                "decoder stopped");
  EXPECT_TRUE(ready);
  // A reach after the failure changes nothing.
  a.signal(1);
  expect_status(halo_wait_handle_status(handle.get(), &ready), HALO_STATUS_ABORTED);
}

// The handle is a snapshot: a timepoint inserted later is not part of it.
TEST_F(FenceTest, WaitHandleCoversTheTimepointsAtItsCreation) {
  const halo::Semaphore first = cpu_.create_semaphore();
  const halo::Fence fence = halo::Fence::at(first, 1);
  const halo::WaitHandle handle = fence.wait_handle();
  fence.insert(peer_.create_semaphore(), 1);
  first.signal(1);
  EXPECT_TRUE(readable(handle, -1));
  EXPECT_FALSE(fence.reached());
}

// Destroying a pending handle cancels its timepoints: later signals and
// failures, on other threads, touch nothing of it.
TEST_F(FenceTest, DestroyingAPendingHandleCancelsIt) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  {
    const halo::Fence fence = halo::Fence::create();
    fence.insert(a, 1).insert(b, 1);
    halo::WaitHandle handle = fence.wait_handle();
    a.signal(1);
  }
  std::thread signaller([&] { b.fail(HALO_STATUS_CANCELLED, "gone"); });
  signaller.join();
  EXPECT_THROW(b.query(), halo::Error);
}

// Handles made and destroyed while another thread signals: each destroy
// races a callback, which must finish before the destroy returns (TSan).
TEST_F(FenceTest, DestroyRacesSignals) {
  constexpr int kRounds = 200;
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  std::thread signaller([&] {
    for (uint64_t value = 1; value <= kRounds; ++value) semaphore.signal(value);
  });
  for (uint64_t value = 1; value <= kRounds; ++value) {
    halo::WaitHandle handle = halo::Fence::at(semaphore, value).wait_handle();
  }
  signaller.join();
  EXPECT_TRUE(readable(halo::Fence::at(semaphore, kRounds).wait_handle(), 0));
}

// With no file descriptor left, making a handle is RESOURCE_EXHAUSTED naming
// eventfd, and nothing stays registered: a later signal finds no timepoint.
TEST_F(FenceTest, WaitHandleWithoutFileDescriptorsIsRefused) {
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  const halo::Fence fence = halo::Fence::at(semaphore, 1);
  rlimit original = {};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &original), 0);
  // The lowest free descriptor becomes the limit, so the next open fails.
  const int lowest_free = dup(0);
  ASSERT_GE(lowest_free, 0);
  close(lowest_free);
  rlimit lowered = original;
  lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  halo_wait_handle_t* handle = nullptr;
  halo_status_t status = halo_fence_create_wait_handle(fence.get(), &handle);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &original), 0);
  expect_status(status, HALO_STATUS_RESOURCE_EXHAUSTED, "eventfd");
  EXPECT_EQ(handle, nullptr);
  semaphore.signal(1);
}

TEST_F(FenceTest, BadArgumentsAreRefused) {
  const halo::Fence fence = halo::Fence::create();
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  expect_status(halo_fence_create(nullptr), HALO_STATUS_INVALID_ARGUMENT, "out_fence");
  expect_status(halo_fence_insert(nullptr, semaphore.get(), 1), HALO_STATUS_INVALID_ARGUMENT,
                "halo_fence_insert");
  expect_status(halo_fence_insert(reinterpret_cast<halo_fence_t*>(semaphore.get()),
                                  semaphore.get(), 1),
                HALO_STATUS_INVALID_ARGUMENT, "fence");
  expect_status(halo_fence_insert(fence.get(), nullptr, 1), HALO_STATUS_INVALID_ARGUMENT,
                "semaphore");
  expect_status(halo_fence_insert(fence.get(), semaphore.get(), HALO_SEMAPHORE_FAILURE_VALUE),
                HALO_STATUS_INVALID_ARGUMENT, "HALO_SEMAPHORE_MAX_VALUE");
  expect_status(halo_fence_join(fence.get(), nullptr), HALO_STATUS_INVALID_ARGUMENT, "source");
  size_t count = 0;
  expect_status(halo_fence_timepoints(fence.get(), 0, nullptr, nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "out_count");
  expect_status(halo_fence_timepoints(fence.get(), 1, nullptr, nullptr, &count),
                HALO_STATUS_INVALID_ARGUMENT, "out_semaphores");
  expect_status(halo_fence_query(fence.get(), nullptr), HALO_STATUS_INVALID_ARGUMENT,
                "out_reached");
  expect_status(halo_fence_wait(nullptr, 0), HALO_STATUS_INVALID_ARGUMENT, "fence");
  expect_status(halo_fence_signal(nullptr), HALO_STATUS_INVALID_ARGUMENT, "fence");
  expect_status(halo_device_queue_execute_fences(cpu_.get(), HALO_QUEUE_AFFINITY_ANY,
                                                 reinterpret_cast<halo_fence_t*>(semaphore.get()),
                                                 nullptr, 0, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "wait_fence");
  expect_status(halo_fence_create_wait_handle(fence.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "out_handle");
  bool ready = false;
  expect_status(halo_wait_handle_status(nullptr, &ready), HALO_STATUS_INVALID_ARGUMENT,
                "handle");
  EXPECT_EQ(halo_wait_handle_fd(nullptr), -1);
  halo_wait_handle_destroy(nullptr);
  halo_fence_release(nullptr);
  halo_fence_retain(nullptr);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN && HALO_TEST_PEER_LIBRARY

}  // namespace
}  // namespace halo_test
