// A Vulkan device whose every object the application has released while
// its work still waits on a foreign (cpu) semaphore: the submission keeps
// the device alive, runs or fails once the foreign semaphore settles,
// signals or fails the foreign semaphore it names, and then drops the last
// reference to the device on the queue's own notification thread.
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

constexpr char kFailure[] = "vulkan test: gate failed 9c04";

class LifetimeTest : public VulkanTest {
 protected:
  // On a device of its own, submits a fill (buffer and command buffer of
  // that device) that waits for |gate| = 1 and signals |done| = 1, then
  // releases the device and everything of it.
  void submit_on_released_device(halo_semaphore_t* gate,
                                 halo_semaphore_t* done) {
    halo_device_t* raw = nullptr;
    HALO_ASSERT_OK(
        halo_driver_create_device(driver(), info().device_id, nullptr, &raw));
    DevicePtr device(raw);
    BufferPtr buffer = make_buffer(1 << 16, device.get());
    CommandBufferPtr command_buffer =
        begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
    const uint32_t pattern = 0x0F0F0F0F;
    HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), buffer.get(),
                                            0, HALO_WHOLE_BUFFER, &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
    halo_command_buffer_t* command_buffers[] = {command_buffer.get()};
    halo_semaphore_t* waits[] = {gate};
    halo_semaphore_t* signals[] = {done};
    const uint64_t one[] = {1};
    halo_queue_execute_info_t info = {};
    info.struct_size = sizeof(info);
    info.affinity = HALO_QUEUE_AFFINITY_ANY;
    info.wait_count = 1;
    info.wait_semaphores = waits;
    info.wait_values = one;
    info.signal_count = 1;
    info.signal_semaphores = signals;
    info.signal_values = one;
    info.command_buffer_count = 1;
    info.command_buffers = command_buffers;
    HALO_ASSERT_OK(halo_device_queue_execute(device.get(), &info));
  }
};

TEST_F(LifetimeTest, ReleasedDeviceRunsForeignGatedWork) {
  SemaphorePtr gate = make_semaphore(0, cpu_device());
  SemaphorePtr done = make_semaphore(0, cpu_device());
  submit_on_released_device(gate.get(), done.get());
  Status early(halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(early.code(), HALO_STATUS_DEADLINE_EXCEEDED) << early.describe();
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_ASSERT_OK(wait(done.get(), 1));
}

TEST_F(LifetimeTest, ReleasedDeviceFailsForeignSignalsWithACopy) {
  SemaphorePtr gate = make_semaphore(0, cpu_device());
  SemaphorePtr done = make_semaphore(0, cpu_device());
  submit_on_released_device(gate.get(), done.get());
  HALO_ASSERT_OK(halo_semaphore_fail(
      gate.get(), halo_status_create(HALO_STATUS_ABORTED, kFailure)));
  Status waited(wait(done.get(), 1));
  EXPECT_EQ(waited.code(), HALO_STATUS_ABORTED) << waited.describe();
  EXPECT_EQ(waited.message(), kFailure);
}

}  // namespace
}  // namespace halo_vulkan_test
