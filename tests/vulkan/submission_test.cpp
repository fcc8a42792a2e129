// Submissions in the Vulkan mapping: waits on semaphores that are not this
// device's VkSemaphores (here the cpu plugin's) hold the work back on the
// host until they are reached, then hand it to the GPU, and a submission
// chained natively behind such work follows it; a failed foreign wait
// fails every signal with a copy of its status and runs nothing; host
// signals release deferred work round after round without a deadlock; a
// signal the host passed while its work waited fails its semaphore; and
// submissions the queue cannot take are refused before anything is queued.
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

using SubmissionTest = VulkanTest;

constexpr char kFailure[] = "vulkan test: foreign failure 3e1a";
constexpr uint32_t kWords = 1024;

// Polls |semaphore| at |value|: true when reached.
bool reached(halo_semaphore_t* semaphore, uint64_t value) {
  Status status(
      halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_TRUE(status.ok() || status.code() == HALO_STATUS_DEADLINE_EXCEEDED)
      << status.describe();
  return status.ok();
}

TEST_F(SubmissionTest, ForeignWaitGatesWorkAndItsNativeFollower) {
  BufferPtr source = make_buffer(kWords * 4), target = make_buffer(kWords * 4);
  write(source.get(), std::vector<uint32_t>(kWords, 0));
  write(target.get(), std::vector<uint32_t>(kWords, 0));
  CommandBufferPtr fill = fill_command_buffer(source.get(), 0x5A5A5A5A);
  CommandBufferPtr copy = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_copy(copy.get(), source.get(), 0,
                                          target.get(), 0, kWords * 4));
  HALO_ASSERT_OK(halo_command_buffer_end(copy.get()));
  SemaphorePtr gate = make_semaphore(0, cpu_device());
  SemaphorePtr filled = make_semaphore(), copied = make_semaphore();
  HALO_ASSERT_OK(submit(fill.get(), {gate.get()}, {1}, {filled.get()}, {1}));
  // The copy waits on a value that only the gated fill will signal.
  HALO_ASSERT_OK(submit(copy.get(), {filled.get()}, {1}, {copied.get()}, {1}));
  EXPECT_FALSE(reached(filled.get(), 1));
  EXPECT_FALSE(reached(copied.get(), 1));
  Status busy(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(busy.code(), HALO_STATUS_DEADLINE_EXCEEDED) << busy.describe();
  // Nothing ran: the fill has not touched its buffer.
  EXPECT_EQ(read(source.get(), kWords), std::vector<uint32_t>(kWords, 0));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_ASSERT_OK(wait(copied.get(), 1));
  EXPECT_TRUE(reached(filled.get(), 1));
  EXPECT_EQ(read(target.get(), kWords),
            std::vector<uint32_t>(kWords, 0x5A5A5A5A));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
}

// A host signal that releases deferred work hands it to the GPU on the
// signalling thread, while the notification thread may be cancelling that
// same wait to turn it into a native one: neither may wait for the other.
// Many rounds of that race, with the gate on this device and on the cpu
// plugin.
TEST_F(SubmissionTest, HostSignalsReleaseDeferredWorkRoundAfterRound) {
  // Under the validation layer each round costs ~100 times more; the race
  // is hunted without it, so a few rounds do there.
  const uint64_t rounds =
      std::getenv("HALO_VULKAN_VALIDATION") != nullptr ? 100 : 10000;
  for (halo_device_t* gate_device : {device(), cpu_device()}) {
    SemaphorePtr gate = make_semaphore(0, gate_device);
    SemaphorePtr done = make_semaphore();
    for (uint64_t value = 1; value <= rounds; ++value) {
      HALO_ASSERT_OK(
          submit(nullptr, {gate.get()}, {value}, {done.get()}, {value}));
      HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), value));
      HALO_ASSERT_OK(wait(done.get(), value));
    }
    HALO_ASSERT_OK(
        halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
  }
}

TEST_F(SubmissionTest, FailedForeignWaitFailsEverySignalWithACopy) {
  BufferPtr buffer = make_buffer(kWords * 4);
  write(buffer.get(), std::vector<uint32_t>(kWords, 7));
  CommandBufferPtr fill = fill_command_buffer(buffer.get(), 0xABABABAB);
  SemaphorePtr gate = make_semaphore(0, cpu_device());
  SemaphorePtr own = make_semaphore(), second = make_semaphore(3),
               follower = make_semaphore();
  SemaphorePtr foreign_out = make_semaphore(0, cpu_device());
  HALO_ASSERT_OK(submit(fill.get(), {gate.get()}, {1},
                        {own.get(), foreign_out.get(), second.get()},
                        {1, 1, 5}));
  // Chained natively behind the failing work: it fails in turn.
  HALO_ASSERT_OK(submit(nullptr, {own.get()}, {1}, {follower.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_fail(
      gate.get(), halo_status_create(HALO_STATUS_DATA_LOSS, kFailure)));
  // Each waits for the value it was to be signalled with: |second| is
  // already past 1, and only the failure may end these waits.
  const std::vector<std::pair<halo_semaphore_t*, uint64_t>> signalled = {
      {own.get(), 1},
      {foreign_out.get(), 1},
      {second.get(), 5},
      {follower.get(), 1}};
  for (const auto& [semaphore, target] : signalled) {
    Status waited(wait(semaphore, target));
    EXPECT_EQ(waited.code(), HALO_STATUS_DATA_LOSS) << waited.describe();
    EXPECT_EQ(waited.message(), kFailure);
    uint64_t value = 0;
    Status queried(halo_semaphore_query(semaphore, &value));
    EXPECT_EQ(queried.code(), HALO_STATUS_DATA_LOSS) << queried.describe();
    EXPECT_GE(value, HALO_SEMAPHORE_FAILURE_VALUE);
  }
  // A failed Vulkan semaphore stays failed for host signals too.
  Status again(halo_semaphore_signal(own.get(), 2));
  EXPECT_EQ(again.code(), HALO_STATUS_DATA_LOSS) << again.describe();
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
  EXPECT_EQ(read(buffer.get(), kWords), std::vector<uint32_t>(kWords, 7));
}

// Work held back on the host, whose signal the host then passes on the
// same device: when the work goes to the GPU, Vulkan must not signal the
// lower value (the payload may not go back), so the queue signals it from
// the host, which fails the semaphore naming both values. The queue knows
// the payload passed without reading it only if it counts host signals
// among what may have moved it (Semaphore::highest_set).
TEST_F(SubmissionTest,
       ASignalTheHostPassedWhileTheWorkWaitedFailsTheSemaphore) {
  SemaphorePtr gate = make_semaphore(), target = make_semaphore();
  HALO_ASSERT_OK(submit(nullptr, {gate.get()}, {1}, {target.get()}, {1000}));
  HALO_ASSERT_OK(halo_semaphore_signal(target.get(), 1001));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  Status waited(wait(target.get(), 1002));
  EXPECT_EQ(waited.code(), HALO_STATUS_INVALID_ARGUMENT) << waited.describe();
  EXPECT_NE(waited.message().find("1000"), std::string::npos);
  EXPECT_NE(waited.message().find("1001"), std::string::npos);
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
}

TEST_F(SubmissionTest, RefusesWhatTheQueueCannotTake) {
  BufferPtr buffer = make_buffer(256);
  CommandBufferPtr ready =
      begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT);
  const uint32_t pattern = 0x01010101;
  HALO_ASSERT_OK(
      halo_command_buffer_fill(ready.get(), buffer.get(), 0, 256, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(ready.get()));
  SemaphorePtr out = make_semaphore();
  halo_semaphore_t* signals[] = {out.get()};
  const uint64_t values[] = {1};
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.signal_count = 1;
  info.signal_semaphores = signals;
  info.signal_values = values;

  // The device has queue 0 only.
  halo_command_buffer_t* one[] = {ready.get()};
  info.command_buffer_count = 1;
  info.command_buffers = one;
  for (halo_queue_affinity_t affinity : {uint64_t{0}, uint64_t{0x6}}) {
    info.affinity = affinity;
    Status status(halo_device_queue_execute(device(), &info));
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx",
                  static_cast<unsigned long long>(affinity));
    expect_status(status, HALO_STATUS_INVALID_ARGUMENT,
                  {"halo_device_queue_execute: info->affinity " +
                   std::string(hex) + " selects no queue"});
  }

  // Command buffers of another VkDevice, or of another plugin, cannot run
  // on this queue; the ONE_SHOT listed before them is not used up.
  CommandBufferPtr elsewhere =
      begin_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE, second_device());
  HALO_ASSERT_OK(halo_command_buffer_end(elsewhere.get()));
  CommandBufferPtr cpu =
      begin_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE, cpu_device());
  HALO_ASSERT_OK(halo_command_buffer_end(cpu.get()));
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  for (halo_command_buffer_t* foreign : {elsewhere.get(), cpu.get()}) {
    halo_command_buffer_t* two[] = {ready.get(), foreign};
    info.command_buffer_count = 2;
    info.command_buffers = two;
    Status status(halo_device_queue_execute(device(), &info));
    expect_status(status, HALO_STATUS_INVALID_ARGUMENT,
                  {"halo_device_queue_execute: info->command_buffers[1] is "
                   "not a command buffer of this device"});
  }
  HALO_ASSERT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
  EXPECT_FALSE(reached(out.get(), 1));
  HALO_ASSERT_OK(submit(ready.get(), {}, {}, {out.get()}, {1}));
  HALO_ASSERT_OK(wait(out.get(), 1));
  EXPECT_EQ(read(buffer.get(), 64), std::vector<uint32_t>(64, 0x01010101));
}

}  // namespace
}  // namespace halo_vulkan_test
