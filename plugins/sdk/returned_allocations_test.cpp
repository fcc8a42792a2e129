// Unit tests of ReturnedAllocations: memory given back stays allocated
// until a free_all (or the end), at most kCapacity blocks wait, and blocks
// given back on several threads while others free them are each freed
// once.
#include "halo/sdk/returned_allocations.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::live_allocations;

void* block() { return fake_host().allocate(64, alignof(void*)); }

TEST(ReturnedAllocationsTest, BlocksGivenBackAreFreedByFreeAll) {
  const long before = live_allocations();
  ReturnedAllocations returned(fake_host());
  returned.free_all();  // None yet.
  for (int i = 0; i < 3; ++i) returned.give_back(block());
  returned.give_back(nullptr);
  EXPECT_EQ(live_allocations(), before + 3);
  returned.free_all();
  EXPECT_EQ(live_allocations(), before);
  returned.give_back(block());
  returned.free_all();
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, BlocksBeyondTheCapacityAreFreedAtOnce) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    for (int i = 0; i < 1000; ++i) returned.give_back(block());
    const long waiting = live_allocations() - before;
    EXPECT_GT(waiting, 0);
    EXPECT_LT(waiting, 1000);
    // Once freed, the capacity is there again.
    returned.free_all();
    returned.give_back(block());
    EXPECT_EQ(live_allocations(), before + 1);
  }
  // The end frees what is left.
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, GivenBackOnSomeThreadsFreedOnOthersEachOnce) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    constexpr int kPerThread = 20000;
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) returned.give_back(block());
      });
      threads.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) returned.free_all();
      });
    }
    for (auto& thread : threads) thread.join();
    returned.free_all();
    EXPECT_EQ(live_allocations(), before);
    // The count of blocks waiting came back to 0: the whole capacity is
    // free again.
    for (int i = 0; i < 100; ++i) returned.give_back(block());
    EXPECT_EQ(live_allocations(), before + 100);
  }
  EXPECT_EQ(live_allocations(), before);
}

}  // namespace
}  // namespace halo::sdk
