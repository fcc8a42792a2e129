// EventList on real OpenCL events (PoCL here): the references it owns are
// released exactly once whether the list stayed in its inline room or grew
// past it, through swap and take_only too, and borrowed events are never
// released. Skips where no OpenCL device exists.
#include <gtest/gtest.h>

#include <vector>

#include "event_list.hpp"
#include "opencl_internal_util.hpp"
#include "testing/fake_host.hpp"

namespace halo::cl {
namespace {

TEST(EventList, OwnsOneReferenceEachInlineAndGrown) {
  TestContext ctx;
  if (!ctx.ok()) GTEST_SKIP() << ctx.skip_reason();
  const Api& api = *ctx.api();
  std::vector<cl_event> events = ctx.user_events(7);
  {
    EventList small(sdk::testing::fake_host(), &api);
    EventList grown(sdk::testing::fake_host(), &api);
    EXPECT_EQ(small.data(), nullptr);
    for (size_t i = 0; i < 2; ++i) small.push(ctx.retained(events[i]));
    for (size_t i = 2; i < 7; ++i) grown.push(ctx.retained(events[i]));
    ASSERT_EQ(small.size(), 2u);
    ASSERT_EQ(grown.size(), 5u);
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(grown.data()[i], events[2 + i]);
    for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 2u);
    small.swap(grown);
    ASSERT_EQ(small.size(), 5u);
    EXPECT_EQ(small.data()[4], events[6]);
    ASSERT_EQ(grown.size(), 2u);
    EXPECT_EQ(grown.data()[1], events[1]);
    grown.clear();
    EXPECT_TRUE(grown.empty());
    EXPECT_EQ(ctx.reference_count(events[0]), 1u);
    EXPECT_EQ(ctx.reference_count(events[1]), 1u);
    grown.push(ctx.retained(events[0]));
    cl_event taken = nullptr;
    ASSERT_EQ(grown.take_only(&taken), CL_SUCCESS);
    EXPECT_EQ(taken, events[0]);
    EXPECT_TRUE(grown.empty());
    EXPECT_EQ(ctx.reference_count(events[0]), 2u);  // Now the test's.
    api.clReleaseEvent(taken);
  }  // |small| releases the five it holds.
  for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
}

TEST(EventList, BorrowedEventsAreNeverReleased) {
  TestContext ctx;
  if (!ctx.ok()) GTEST_SKIP() << ctx.skip_reason();
  const Api& api = *ctx.api();
  std::vector<cl_event> events = ctx.user_events(6);
  {
    EventList list(sdk::testing::fake_host(), &api);
    EventList other(sdk::testing::fake_host(), &api);
    // Past the inline room, so that growing copies the borrowed ones too.
    for (size_t i = 0; i < 3; ++i) list.push_borrowed(events[i]);
    for (size_t i = 3; i < 6; ++i) list.push(ctx.retained(events[i]));
    ASSERT_EQ(list.size(), 6u);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(list.data()[i], events[i]);
    // What a command buffer's barrier does: the wait list moves to a
    // segment that is cleared.
    list.swap(other);
    EXPECT_TRUE(list.empty());
    other.clear();
    for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
    // A list of one borrowed event hands out a reference of its own.
    list.push_borrowed(events[0]);
    cl_event taken = nullptr;
    ASSERT_EQ(list.take_only(&taken), CL_SUCCESS);
    EXPECT_EQ(taken, events[0]);
    EXPECT_TRUE(list.empty());
    EXPECT_EQ(ctx.reference_count(events[0]), 2u);
    api.clReleaseEvent(taken);
    list.push_borrowed(events[1]);
  }  // The list's end forgets |events[1]|.
  for (cl_event event : events) EXPECT_EQ(ctx.reference_count(event), 1u);
}

}  // namespace
}  // namespace halo::cl
