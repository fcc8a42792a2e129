// Unit tests of the futex wrappers.
#include "halo/sdk/futex.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace halo::sdk {
namespace {

TEST(FutexTest, PollNeverBlocks) {
  std::atomic<uint32_t> word{0};
  EXPECT_FALSE(futex_wait(&word, 0, HALO_DEADLINE_INFINITE_PAST));
}

TEST(FutexTest, ChangedWordReturnsAtOnce) {
  std::atomic<uint32_t> word{1};
  EXPECT_TRUE(futex_wait(&word, 0, HALO_DEADLINE_INFINITE_FUTURE));
}

TEST(FutexTest, PastDeadlineTimesOut) {
  std::atomic<uint32_t> word{0};
  EXPECT_FALSE(futex_wait(&word, 0, monotonic_now_ns() - 1000));
  EXPECT_FALSE(futex_wait(&word, 0, monotonic_now_ns() + 1000000));
}

TEST(FutexTest, WakeAllReleasesEveryWaiter) {
  std::atomic<uint32_t> word{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      while (word.load() == 0) {
        futex_wait(&word, 0, HALO_DEADLINE_INFINITE_FUTURE);
      }
    });
  }
  word.store(1);
  futex_wake_all(&word);
  for (auto& waiter : waiters) waiter.join();
  EXPECT_EQ(word.load(), 1u);
}

TEST(FutexTest, WakeOneReleasesAWaiter) {
  std::atomic<uint32_t> word{0};
  std::thread waiter([&] {
    while (word.load() == 0) {
      futex_wait(&word, 0, HALO_DEADLINE_INFINITE_FUTURE);
    }
  });
  word.store(1);
  futex_wake_one(&word);
  waiter.join();
  EXPECT_EQ(word.load(), 1u);
}

}  // namespace
}  // namespace halo::sdk
