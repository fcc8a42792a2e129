// DeferredReleases on real OpenCL events (PoCL here): the events it takes
// over keep their reference until release_all (or its end), however many,
// and it stays usable after each. Skips where no OpenCL device exists.
#include <gtest/gtest.h>

#include <vector>

#include "deferred_releases.hpp"
#include "opencl_internal_util.hpp"
#include "testing/fake_host.hpp"

namespace halo::cl {
namespace {

TEST(DeferredReleases, KeepsEveryEventUntilReleaseAll) {
  TestContext ctx;
  if (!ctx.ok()) GTEST_SKIP() << ctx.skip_reason();
  // Past the storage it starts with, twice.
  std::vector<cl_event> events = ctx.user_events(200);
  {
    DeferredReleases releases(sdk::testing::fake_host(), ctx.api());
    releases.release_all();   // Nothing yet.
    releases.defer(nullptr);  // Accepted, and nothing to release.
    for (cl_event event : events) releases.defer(ctx.retained(event));
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(ctx.reference_count(events[i]), 2u) << i;
    }
    releases.release_all();
    for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
    // Again, into the storage the first round left.
    for (cl_event event : events) releases.defer(ctx.retained(event));
    releases.release_all();
    for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
    // Once more, left to the destructor.
    releases.defer(ctx.retained(events[0]));
    EXPECT_EQ(ctx.reference_count(events[0]), 2u);
  }
  EXPECT_EQ(ctx.reference_count(events[0]), 1u);
}

// With no memory to keep an event in, it is released at once.
TEST(DeferredReleases, ReleasesAtOnceWhenNoMemoryIsLeft) {
  TestContext ctx;
  if (!ctx.ok()) GTEST_SKIP() << ctx.skip_reason();
  halo_host_interface_t exhausted = *sdk::testing::fake_host_interface();
  exhausted.allocator.allocate = [](void*, size_t, size_t) -> void* {
    return nullptr;
  };
  std::vector<cl_event> events = ctx.user_events(1);
  DeferredReleases releases(sdk::Host(&exhausted), ctx.api());
  releases.defer(ctx.retained(events[0]));
  EXPECT_EQ(ctx.reference_count(events[0]), 1u);
  releases.release_all();
  EXPECT_EQ(ctx.reference_count(events[0]), 1u);
}

}  // namespace
}  // namespace halo::cl
