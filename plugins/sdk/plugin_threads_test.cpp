// Unit tests of PluginThreads: a teardown's await_exits returns only once
// every thread's body has returned, and a thread that tears its own owner
// down is let go at once and told so. No test depends on timing.
#include "halo/sdk/plugin_threads.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <future>
#include <memory>
#include <string>

namespace halo::sdk {
namespace {

// Bodies block until |release| is set, then record that they ended.
struct Blocked {
  void run() noexcept {
    started.fetch_add(1);
    while (!release.load()) release.wait(false);
    ended.fetch_add(1);
  }
  void let_go() {
    release.store(true);
    release.notify_all();
  }
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  std::atomic<int> ended{0};
  PluginThreads threads;
};

TEST(PluginThreadsTest, AwaitExitsReturnsOnlyOnceEveryBodyReturned) {
  Blocked blocked;
  constexpr int kThreads = 4;
  for (int i = 0; i < kThreads; ++i) {
    blocked.threads.start("halo-test", [&blocked] { blocked.run(); });
  }
  blocked.let_go();
  blocked.threads.await_exits();
  EXPECT_EQ(blocked.ended.load(), kThreads);
}

TEST(PluginThreadsTest, AwaitExitsWithoutThreadsReturnsAtOnce) {
  PluginThreads threads;
  threads.await_exits();
  threads.await_exits();
}

TEST(PluginThreadsTest, ThreadsKnowThemselvesAndCarryTheirName) {
  PluginThreads threads;
  std::promise<std::string> name;
  std::promise<bool> is_current;
  threads.start("halo-a-name-longer-than-fifteen", [&] {
    char buffer[16] = {};
    pthread_getname_np(pthread_self(), buffer, sizeof(buffer));
    name.set_value(buffer);
    is_current.set_value(threads.is_current_thread());
  });
  EXPECT_EQ(name.get_future().get(), "halo-a-name-lon");
  EXPECT_TRUE(is_current.get_future().get());
  threads.await_exits();
  EXPECT_FALSE(threads.is_current_thread());
  EXPECT_FALSE(PluginThreads::current_thread_abandoned());
}

TEST(PluginThreadsTest, AThreadTearingItsOwnerDownIsLetGoAtOnce) {
  // The owner lives on the heap and is freed by its own thread, as a device
  // is when its worker drops the last reference; AddressSanitizer would
  // catch a touch of the owner after that.
  struct Owner {
    PluginThreads threads;
    std::promise<bool> abandoned_before;
    std::promise<bool> abandoned_after;
  };
  auto* owner = new Owner;
  std::future<bool> before = owner->abandoned_before.get_future();
  std::future<bool> after = owner->abandoned_after.get_future();
  owner->threads.start("halo-test", [owner] {
    owner->abandoned_before.set_value(PluginThreads::current_thread_abandoned());
    std::promise<bool> report = std::move(owner->abandoned_after);
    owner->threads.await_exits();
    delete owner;
    report.set_value(PluginThreads::current_thread_abandoned());
  });
  EXPECT_FALSE(before.get());
  EXPECT_TRUE(after.get());
}

TEST(PluginThreadsTest, AThreadTearingItsOwnerDownStillWaitsForTheOthers) {
  Blocked blocked;
  std::promise<int> ended_when_released;
  std::future<int> ended = ended_when_released.get_future();
  blocked.threads.start("halo-test", [&blocked] { blocked.run(); });
  // The promise moves into the thread: it must outlive the test's frame.
  blocked.threads.start("halo-test", [&blocked, report = std::move(ended_when_released)]() mutable {
    blocked.let_go();
    blocked.threads.await_exits();
    report.set_value(blocked.ended.load());
  });
  EXPECT_EQ(ended.get(), 1);
}

TEST(PluginThreadsDeathTest, FreeingWithAThreadRunningAborts) {
  // An owner that forgot await_exits would be freed under its thread; like
  // a std::thread left joinable, that ends the process instead.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::atomic<bool> never{false};
        auto* threads = new PluginThreads;
        threads->start("halo-test", [&never] { never.wait(false); });
        delete threads;
      },
      "still running");
}

}  // namespace
}  // namespace halo::sdk
