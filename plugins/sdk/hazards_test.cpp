#include "halo/sdk/hazards.hpp"

#include <gtest/gtest.h>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

int a_buffer, another_buffer;

BufferAccess read(const void* buffer, uint64_t offset, uint64_t length) {
  return {buffer, offset, length, false};
}
BufferAccess write(const void* buffer, uint64_t offset, uint64_t length) {
  return {buffer, offset, length, true};
}

TEST(HazardTracker, OrdersEveryConflictOnOverlappingBytes) {
  HazardTracker tracker(testing::fake_host());
  tracker.add(write(&a_buffer, 100, 100));
  EXPECT_TRUE(tracker.conflicts(read(&a_buffer, 199, 1)));   // After write.
  EXPECT_TRUE(tracker.conflicts(write(&a_buffer, 0, 101)));  // Write after write.
  tracker.clear();
  tracker.add(read(&a_buffer, 0, 16));
  EXPECT_TRUE(tracker.conflicts(write(&a_buffer, 8, 16)));  // Write after read.
}

TEST(HazardTracker, LetsReadsDisjointRangesAndOtherBuffersOverlap) {
  HazardTracker tracker(testing::fake_host());
  tracker.add(read(&a_buffer, 0, 64));
  tracker.add(write(&a_buffer, 64, 64));
  EXPECT_FALSE(tracker.conflicts(read(&a_buffer, 0, 64)));
  EXPECT_FALSE(tracker.conflicts(write(&a_buffer, 128, 64)));
  EXPECT_FALSE(tracker.conflicts(write(&another_buffer, 0, 128)));
}

TEST(HazardTracker, ZeroLengthAccessesTouchNothing) {
  HazardTracker tracker(testing::fake_host());
  tracker.add(write(&a_buffer, 0, 0));
  EXPECT_TRUE(tracker.empty());
  tracker.add(write(&a_buffer, 0, 8));
  EXPECT_FALSE(tracker.conflicts(write(&a_buffer, 4, 0)));
}

TEST(HazardTracker, AnyOfSeveralAccessesConflicts) {
  HazardTracker tracker(testing::fake_host());
  tracker.add(write(&a_buffer, 0, 8));
  const BufferAccess copy[2] = {read(&another_buffer, 0, 8),
                                read(&a_buffer, 4, 8)};
  EXPECT_TRUE(tracker.conflicts(copy, 2));
  EXPECT_FALSE(tracker.conflicts(copy, 1));
}

}  // namespace
}  // namespace halo::sdk
