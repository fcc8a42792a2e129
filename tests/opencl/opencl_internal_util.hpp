// A context on the first OpenCL device, from the loader the plugin opens,
// with user events to hand to the plugin's internals in their tests.
#ifndef HALO_TESTS_OPENCL_INTERNAL_UTIL_HPP_
#define HALO_TESTS_OPENCL_INTERNAL_UTIL_HPP_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cl_library.hpp"

namespace halo::cl {

class TestContext {
 public:
  TestContext() {
    const char* reason = nullptr;
    api_ = load_api(&reason);
    if (api_ == nullptr) {
      skip_reason_ = reason;
      return;
    }
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    if (api_->clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
        api_->clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device,
                             nullptr) != CL_SUCCESS) {
      skip_reason_ = "no OpenCL device";
      return;
    }
    cl_int code = CL_SUCCESS;
    context_ = api_->clCreateContext(nullptr, 1, &device, nullptr, nullptr,
                                     &code);
    if (code != CL_SUCCESS) skip_reason_ = "clCreateContext failed";
  }
  ~TestContext() {
    for (cl_event event : events_) {
      api_->clSetUserEventStatus(event, CL_COMPLETE);
      api_->clReleaseEvent(event);
    }
    if (context_ != nullptr) api_->clReleaseContext(context_);
  }
  TestContext(const TestContext&) = delete;
  TestContext& operator=(const TestContext&) = delete;

  bool ok() const { return skip_reason_.empty(); }
  const std::string& skip_reason() const { return skip_reason_; }
  const Api* api() const { return api_; }

  // |count| user events, each with one reference of this context's, which
  // completes and releases them when it goes.
  std::vector<cl_event> user_events(size_t count) {
    std::vector<cl_event> made;
    for (size_t i = 0; i < count; ++i) {
      cl_int code = CL_SUCCESS;
      cl_event event = api_->clCreateUserEvent(context_, &code);
      EXPECT_EQ(code, CL_SUCCESS);
      made.push_back(event);
      events_.push_back(event);
    }
    return made;
  }
  // |event| with one more reference, for a callee to take over.
  cl_event retained(cl_event event) {
    EXPECT_EQ(api_->clRetainEvent(event), CL_SUCCESS);
    return event;
  }
  cl_uint reference_count(cl_event event) {
    cl_uint count = 0;
    EXPECT_EQ(api_->clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT,
                                   sizeof(count), &count, nullptr),
              CL_SUCCESS);
    return count;
  }

 private:
  const Api* api_ = nullptr;
  cl_context context_ = nullptr;
  std::string skip_reason_;
  std::vector<cl_event> events_;
};

}  // namespace halo::cl

#endif  // HALO_TESTS_OPENCL_INTERNAL_UTIL_HPP_
