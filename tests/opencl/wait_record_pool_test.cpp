// The wait record pool: released records are reused, up to its limit, and
// nothing leaks.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "testing/fake_host.hpp"
#include "wait_record_pool.hpp"

namespace halo::cl {
namespace {

using sdk::testing::fake_host;
using sdk::testing::live_allocations;
using sdk::testing::total_allocations;

TEST(WaitRecordPool, ReleasedRecordsAreReusedWithoutAllocating) {
  const long live_before = live_allocations();
  {
    WaitRecordPool pool(fake_host());
    std::vector<WaitRecord*> first;
    for (int i = 0; i < 8; ++i) first.push_back(pool.acquire());
    EXPECT_EQ(pool.allocated(), 8u);
    std::set<WaitRecord*> seen(first.begin(), first.end());
    for (WaitRecord* record : first) {
      record->done.store(1);
      record->timepoint.value = 42;
      pool.release(record);
    }
    EXPECT_EQ(pool.free_count(), 8u);
    const long allocations = total_allocations();
    for (int round = 0; round < 100; ++round) {
      std::vector<WaitRecord*> again;
      for (int i = 0; i < 8; ++i) again.push_back(pool.acquire());
      for (WaitRecord* record : again) {
        EXPECT_TRUE(seen.count(record)) << "a new record instead of a free one";
        EXPECT_EQ(record->done.load(), 0u);  // Reset for its next use.
        EXPECT_EQ(record->timepoint.value, 0u);
        EXPECT_EQ(record->submission, nullptr);
        pool.release(record);
      }
    }
    EXPECT_EQ(total_allocations(), allocations);
    EXPECT_EQ(pool.allocated(), 8u);
  }
  EXPECT_EQ(live_allocations(), live_before);
}

TEST(WaitRecordPool, KeepsAtMostItsLimitFree) {
  const long live_before = live_allocations();
  {
    WaitRecordPool pool(fake_host(), 4);
    std::vector<WaitRecord*> records;
    for (int i = 0; i < 10; ++i) records.push_back(pool.acquire());
    for (WaitRecord* record : records) pool.release(record);
    EXPECT_EQ(pool.free_count(), 4u);
    EXPECT_EQ(pool.allocated(), 4u);
  }
  EXPECT_EQ(live_allocations(), live_before);
}

TEST(WaitRecordPool, ReleaseAcceptsNull) {
  WaitRecordPool pool(fake_host());
  pool.release(nullptr);
  EXPECT_EQ(pool.free_count(), 0u);
}

}  // namespace
}  // namespace halo::cl
