// DeferredReleases on real OpenCL events (PoCL here): the events it takes
// over keep their reference until release_all, except past its capacity,
// where each goes at once. Skips where no OpenCL device exists.
#include <gtest/gtest.h>

#include <vector>

#include "cl_library.hpp"
#include "deferred_releases.hpp"

namespace halo::cl {
namespace {

cl_uint reference_count(const Api& api, cl_event event) {
  cl_uint count = 0;
  EXPECT_EQ(api.clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof(count),
                               &count, nullptr),
            CL_SUCCESS);
  return count;
}

TEST(DeferredReleases, KeepsEventsUntilReleaseAllAndReleasesOverflowAtOnce) {
  const char* reason = nullptr;
  const Api* api = load_api(&reason);
  if (api == nullptr) GTEST_SKIP() << reason;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (api->clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      api->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) !=
          CL_SUCCESS) {
    GTEST_SKIP() << "no OpenCL device";
  }
  cl_int code = CL_SUCCESS;
  cl_context context =
      api->clCreateContext(nullptr, 1, &device, nullptr, nullptr, &code);
  ASSERT_EQ(code, CL_SUCCESS);
  // More than the 64 it keeps: each event with a reference of the test's
  // own, and one handed over.
  std::vector<cl_event> events(70);
  for (cl_event& event : events) {
    event = api->clCreateUserEvent(context, &code);
    ASSERT_EQ(code, CL_SUCCESS);
    ASSERT_EQ(api->clRetainEvent(event), CL_SUCCESS);
  }
  {
    DeferredReleases releases(api);
    releases.defer(nullptr);  // Accepted, and nothing to release.
    for (cl_event event : events) releases.defer(event);
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(reference_count(*api, events[i]), i < 64 ? 2u : 1u) << i;
    }
    releases.release_all();
    for (cl_event event : events) EXPECT_EQ(reference_count(*api, event), 1u);
    // Once more, left to the destructor.
    ASSERT_EQ(api->clRetainEvent(events[0]), CL_SUCCESS);
    releases.defer(events[0]);
    EXPECT_EQ(reference_count(*api, events[0]), 2u);
  }
  EXPECT_EQ(reference_count(*api, events[0]), 1u);
  for (cl_event event : events) {
    api->clSetUserEventStatus(event, CL_COMPLETE);
    api->clReleaseEvent(event);
  }
  api->clReleaseContext(context);
}

}  // namespace
}  // namespace halo::cl
