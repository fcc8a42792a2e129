// DeferredReleases on real OpenCL events (PoCL here): the events it takes
// over keep their reference until release_all, except past its capacity,
// where each goes at once. Skips where no OpenCL device exists.
#include <gtest/gtest.h>

#include <vector>

#include "deferred_releases.hpp"
#include "opencl_internal_util.hpp"

namespace halo::cl {
namespace {

TEST(DeferredReleases, KeepsEventsUntilReleaseAllAndReleasesOverflowAtOnce) {
  TestContext ctx;
  if (!ctx.ok()) GTEST_SKIP() << ctx.skip_reason();
  // More than the 64 it keeps.
  std::vector<cl_event> events = ctx.user_events(70);
  {
    DeferredReleases releases(ctx.api());
    releases.defer(nullptr);  // Accepted, and nothing to release.
    for (cl_event event : events) releases.defer(ctx.retained(event));
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(ctx.reference_count(events[i]), i < 64 ? 2u : 1u) << i;
    }
    releases.release_all();
    for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
    // Once more, left to the destructor.
    releases.defer(ctx.retained(events[0]));
    EXPECT_EQ(ctx.reference_count(events[0]), 2u);
  }
  EXPECT_EQ(ctx.reference_count(events[0]), 1u);
}

}  // namespace
}  // namespace halo::cl
