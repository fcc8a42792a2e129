// Unit tests of ReturnedAllocations: memory given back stays allocated
// until a take reuses it or a free_all (or the end) frees it, a block goes
// only to a taker it fits, at most kCapacity blocks wait, and blocks given
// back on several threads while others take and free them are each reused
// or freed once.
#include "halo/sdk/returned_allocations.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::live_allocations;

constexpr size_t kBlockSize = 64;

void* block() { return fake_host().allocate(kBlockSize, alignof(void*)); }

TEST(ReturnedAllocationsTest, BlocksGivenBackAreFreedByFreeAll) {
  const long before = live_allocations();
  ReturnedAllocations returned(fake_host());
  returned.free_all();  // None yet.
  for (int i = 0; i < 3; ++i) returned.give_back(block(), kBlockSize);
  returned.give_back(nullptr, 0);
  EXPECT_EQ(live_allocations(), before + 3);
  returned.free_all();
  EXPECT_EQ(live_allocations(), before);
  returned.give_back(block(), kBlockSize);
  returned.free_all();
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, BlocksBeyondTheCapacityAreFreedAtOnce) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    for (int i = 0; i < 1000; ++i) returned.give_back(block(), kBlockSize);
    const long waiting = live_allocations() - before;
    EXPECT_GT(waiting, 0);
    EXPECT_LT(waiting, 1000);
    // Once freed, the capacity is there again.
    returned.free_all();
    returned.give_back(block(), kBlockSize);
    EXPECT_EQ(live_allocations(), before + 1);
  }
  // The end frees what is left.
  EXPECT_EQ(live_allocations(), before);
}

constexpr int kPerThread = 20000;

// Two threads give back kPerThread blocks each while two others call
// |other| kPerThread times each, with the round's number.
template <class Other>
void give_back_beside(ReturnedAllocations& returned, Other other) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        returned.give_back(block(), kBlockSize);
      }
    });
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) other(i);
    });
  }
  for (auto& thread : threads) thread.join();
}

TEST(ReturnedAllocationsTest, GivenBackOnSomeThreadsFreedOnOthersEachOnce) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    give_back_beside(returned, [&](int) { returned.free_all(); });
    returned.free_all();
    EXPECT_EQ(live_allocations(), before);
    // The count of blocks waiting came back to 0: the whole capacity is
    // free again.
    for (int i = 0; i < 100; ++i) returned.give_back(block(), kBlockSize);
    EXPECT_EQ(live_allocations(), before + 100);
  }
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, TakeReusesABlockThatFits) {
  const long before = live_allocations();
  ReturnedAllocations returned(fake_host());
  size_t size = 0;
  EXPECT_EQ(returned.take(kBlockSize, alignof(void*), &size), nullptr);
  void* given = block();
  returned.give_back(given, kBlockSize);
  void* taken = returned.take(kBlockSize / 2, alignof(void*), &size);
  EXPECT_EQ(taken, given);
  EXPECT_EQ(size, kBlockSize);  // The whole block, for its next give_back.
  EXPECT_TRUE(returned.empty());
  EXPECT_EQ(live_allocations(), before + 1);  // Still allocated: the taker's.
  returned.give_back(taken, size);
  returned.free_all();
  EXPECT_TRUE(returned.empty());
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, ABlockThatDoesNotFitIsFreedNotTaken) {
  const long before = live_allocations();
  ReturnedAllocations returned(fake_host());
  size_t size = 0;
  returned.give_back(block(), kBlockSize);
  EXPECT_EQ(returned.take(kBlockSize + 1, alignof(void*), &size), nullptr);
  EXPECT_EQ(live_allocations(), before);
  // Nor one at an alignment the taker cannot use: twice the block's own.
  void* given = block();
  const auto address = reinterpret_cast<uintptr_t>(given);
  const size_t alignment = (address & (~address + 1)) * 2;
  returned.give_back(given, kBlockSize);
  EXPECT_EQ(returned.take(kBlockSize, alignment, &size), nullptr);
  EXPECT_EQ(live_allocations(), before);
  returned.free_all();
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, FreeAllFreesBlocksTakenFromTheStackButNotReused) {
  const long before = live_allocations();
  ReturnedAllocations returned(fake_host());
  for (int i = 0; i < 5; ++i) returned.give_back(block(), kBlockSize);
  size_t size = 0;
  void* taken = returned.take(kBlockSize, alignof(void*), &size);
  ASSERT_NE(taken, nullptr);
  // The four others wait as the taker's spares: not empty, still allocated.
  EXPECT_FALSE(returned.empty());
  EXPECT_EQ(live_allocations(), before + 5);
  returned.free_all();
  EXPECT_TRUE(returned.empty());
  EXPECT_EQ(live_allocations(), before + 1);
  fake_host().deallocate(taken);
  EXPECT_EQ(live_allocations(), before);
}

// A queue whose completion thread gives back more than its submissions
// take keeps at most kCapacity spares: the taker frees the rest.
TEST(ReturnedAllocationsTest, SparesStayWithinTheCapacity) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    std::vector<void*> taken;
    for (int round = 0; round < 4; ++round) {
      for (size_t i = 0; i < ReturnedAllocations::kCapacity; ++i) {
        returned.give_back(block(), kBlockSize);
      }
      size_t size = 0;
      taken.push_back(returned.take(kBlockSize, alignof(void*), &size));
      ASSERT_NE(taken.back(), nullptr);
      const long waiting =
          live_allocations() - before - static_cast<long>(taken.size());
      EXPECT_LE(waiting, static_cast<long>(ReturnedAllocations::kCapacity));
    }
    for (void* block : taken) fake_host().deallocate(block);
  }
  EXPECT_EQ(live_allocations(), before);
}

TEST(ReturnedAllocationsTest, GivenBackOnSomeThreadsTakenOnOthersEachOnce) {
  const long before = live_allocations();
  {
    ReturnedAllocations returned(fake_host());
    // Takers put back what they take, as a queue's submissions come back,
    // and now and then free everything, as the idle completion thread does
    // beside a submitter that comes back just then.
    give_back_beside(returned, [&](int round) {
      if (round % 4 == 3) {
        returned.free_all();
        return;
      }
      size_t size = 0;
      void* taken = returned.take(kBlockSize, alignof(void*), &size);
      if (taken != nullptr) {
        std::memset(taken, 0xab, size);  // Only the taker's (ASan, TSan).
        returned.give_back(taken, size);
      }
    });
  }
  EXPECT_EQ(live_allocations(), before);
}

}  // namespace
}  // namespace halo::sdk
