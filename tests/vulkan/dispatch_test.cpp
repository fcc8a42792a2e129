// Dispatches the vulkan plugin refuses for reasons of its own mapping: an
// executable or buffer of another device (each device is a VkDevice of its
// own, so its pipelines and memory cannot be used elsewhere), workgroup
// counts above the device's limits, and bindings that do not match what the
// entry point declares. Each refusal leaves the command buffer recording.
#include <string>
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

class DispatchTest : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    HALO_ASSERT_OK(create_executable(kernel_spirv("add_one"), &executable_));
    buffer_ = make_buffer(64 * sizeof(uint32_t));
    write(buffer_.get(), std::vector<uint32_t>(64, 1));
    command_buffer_ = begin_command_buffer();
  }

  // add_one over |buffer_|'s 64 words in one workgroup.
  halo_dispatch_params_t params() {
    binding_ = {buffer_.get(), 0, HALO_WHOLE_BUFFER};
    halo_dispatch_params_t params = {};
    params.struct_size = sizeof(params);
    params.executable = executable_.get();
    params.workgroup_count[0] = 1;
    params.workgroup_count[1] = 1;
    params.workgroup_count[2] = 1;
    params.constant_size = sizeof(count_);
    params.constants = &count_;
    params.binding_count = 1;
    params.bindings = &binding_;
    return params;
  }

  // Expects |params| to be refused as INVALID_ARGUMENT naming the function
  // and each of |words|.
  void expect_refused(const halo_dispatch_params_t& params,
                      const std::vector<std::string>& words) {
    Status status(halo_command_buffer_dispatch(command_buffer_.get(), &params));
    std::vector<std::string> all = {"halo_command_buffer_dispatch: "};
    all.insert(all.end(), words.begin(), words.end());
    expect_status(status, HALO_STATUS_INVALID_ARGUMENT, all);
  }

  // The refusals recorded nothing: one valid dispatch after them adds one
  // exactly once.
  void expect_still_recording() {
    const halo_dispatch_params_t valid = params();
    HALO_ASSERT_OK(halo_command_buffer_dispatch(command_buffer_.get(), &valid));
    HALO_ASSERT_OK(halo_command_buffer_end(command_buffer_.get()));
    SemaphorePtr done = make_semaphore();
    HALO_ASSERT_OK(submit(command_buffer_.get(), {}, {}, {done.get()}, {1}));
    HALO_ASSERT_OK(wait(done.get(), 1));
    EXPECT_EQ(read(buffer_.get(), 64), std::vector<uint32_t>(64, 2));
  }

  ExecutablePtr executable_;
  BufferPtr buffer_;
  CommandBufferPtr command_buffer_;
  halo_buffer_binding_t binding_ = {};
  uint32_t count_ = 64;
};

TEST_F(DispatchTest, RefusesObjectsOfAnotherDevice) {
  ExecutablePtr elsewhere;
  HALO_ASSERT_OK(
      create_executable(kernel_spirv("add_one"), &elsewhere, second_device()));
  halo_dispatch_params_t foreign_executable = params();
  foreign_executable.executable = elsewhere.get();
  expect_refused(foreign_executable,
                 {"params->executable is not an executable of this device"});

  BufferPtr other_buffer = make_buffer(64 * sizeof(uint32_t), second_device());
  halo_dispatch_params_t foreign_buffer = params();
  const halo_buffer_binding_t binding = {other_buffer.get(), 0,
                                         HALO_WHOLE_BUFFER};
  foreign_buffer.bindings = &binding;
  expect_refused(foreign_buffer,
                 {"params->bindings[0] is not a buffer of this device"});

  // A cpu buffer is no buffer of this plugin at all.
  BufferPtr cpu_buffer = make_buffer(64 * sizeof(uint32_t), cpu_device());
  const halo_buffer_binding_t cpu_binding = {cpu_buffer.get(), 0,
                                             HALO_WHOLE_BUFFER};
  foreign_buffer.bindings = &cpu_binding;
  expect_refused(foreign_buffer,
                 {"params->bindings[0] is not a buffer of this device"});
  expect_still_recording();
}

TEST_F(DispatchTest, RefusesBindingsTheEntryPointDoesNotDeclare) {
  halo_dispatch_params_t two = params();
  const halo_buffer_binding_t bindings[2] = {binding_, binding_};
  two.binding_count = 2;
  two.bindings = bindings;
  expect_refused(two, {"params->binding_count 2",
                       "entry point 'add_one' takes 1 bindings"});
  halo_dispatch_params_t wide = params();
  const uint32_t constants[2] = {64, 0};
  wide.constant_size = sizeof(constants);
  wide.constants = constants;
  expect_refused(
      wide, {"params->constant_size 8", "entry point 'add_one' takes 4 bytes"});
  expect_still_recording();
}

TEST_F(DispatchTest, RefusesWorkgroupCountsAboveTheDeviceLimit) {
  if (!is_lavapipe(info())) {
    GTEST_SKIP() << "the limits of " << info().name << " are not known here";
  }
  // Lavapipe's maxComputeWorkGroupCount is 65535 on every axis.
  for (int axis = 0; axis < 3; ++axis) {
    halo_dispatch_params_t params = this->params();
    params.workgroup_count[axis] = 65536;
    const std::string index = "[" + std::to_string(axis) + "]";
    expect_refused(params, {"params->workgroup_count" + index +
                            " 65536 is above the device's max_workgroup_count" +
                            index + " 65535"});
  }
  expect_still_recording();
}

}  // namespace
}  // namespace halo_vulkan_test
