// Submissions with work: a failed wait keeps the work from ever running,
// semaphores order work across submissions (and nothing else does), a
// signal another has overtaken fails its semaphore, and a refused
// submission gives its ONE_SHOT command buffers back.
#include <cstring>
#include <string>
#include <vector>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

using SubmissionTest = OpenClTest;

constexpr char kFailure[] = "opencl test: failed wait 51c3";

TEST_F(SubmissionTest, FailedWaitKeepsTheWorkFromRunning) {
  BufferPtr buffer = make_buffer(4096);
  write(buffer.get(), std::vector<uint8_t>(4096, 0));
  CommandBufferPtr command_buffer = begin_command_buffer();
  const uint32_t pattern = 0xABABABAB;
  HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), buffer.get(), 0,
                                          HALO_WHOLE_BUFFER, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  SemaphorePtr gate = make_semaphore(), out = make_semaphore();
  HALO_ASSERT_OK(submit(command_buffer.get(), {gate.get()}, {1}, {out.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_fail(
      gate.get(), halo_status_create(HALO_STATUS_ABORTED, kFailure)));
  Status waited(halo_semaphore_wait(out.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(waited.code(), HALO_STATUS_ABORTED) << waited.describe();
  EXPECT_EQ(waited.message(), kFailure);
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(read(buffer.get(), 4096), std::vector<uint8_t>(4096, 0));
}

TEST_F(SubmissionTest, SemaphoresOrderWorkAcrossSubmissions) {
  // Made in reverse order: the copies wait for the fills they read.
  BufferPtr a = make_buffer(4096), b = make_buffer(4096), c = make_buffer(4096);
  SemaphorePtr filled = make_semaphore(), copied = make_semaphore(),
               done = make_semaphore(), start = make_semaphore();
  CommandBufferPtr copy_bc = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_copy(copy_bc.get(), b.get(), 0, c.get(), 0, 4096));
  HALO_ASSERT_OK(halo_command_buffer_end(copy_bc.get()));
  CommandBufferPtr copy_ab = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_copy(copy_ab.get(), a.get(), 0, b.get(), 0, 4096));
  HALO_ASSERT_OK(halo_command_buffer_end(copy_ab.get()));
  CommandBufferPtr fill_a = begin_command_buffer();
  const uint32_t pattern = 0x5A5A5A5A;
  HALO_ASSERT_OK(halo_command_buffer_fill(fill_a.get(), a.get(), 0, 4096, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill_a.get()));
  HALO_ASSERT_OK(submit(copy_bc.get(), {copied.get()}, {1}, {done.get()}, {1}));
  HALO_ASSERT_OK(submit(copy_ab.get(), {filled.get()}, {1}, {copied.get()}, {1}));
  HALO_ASSERT_OK(submit(fill_a.get(), {start.get()}, {1}, {filled.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_signal(start.get(), 1));
  HALO_ASSERT_OK(halo_semaphore_wait(done.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(read(c.get(), 4096), std::vector<uint8_t>(4096, 0x5A));
  // The same chain made in order, with nothing to wait for at the head:
  // the later submissions chain on the earlier ones' events on the device.
  SemaphorePtr step = make_semaphore();
  const uint32_t second = 0x3C3C3C3C;
  CommandBufferPtr refill = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_fill(refill.get(), a.get(), 0, 4096, &second, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(refill.get()));
  HALO_ASSERT_OK(submit(refill.get(), {}, {}, {step.get()}, {1}));
  HALO_ASSERT_OK(submit(copy_ab.get(), {step.get()}, {1}, {step.get()}, {2}));
  HALO_ASSERT_OK(submit(copy_bc.get(), {step.get()}, {2}, {step.get()}, {3}));
  HALO_ASSERT_OK(halo_semaphore_wait(step.get(), 3, deadline_in_ms(20000)));
  EXPECT_EQ(read(c.get(), 4096), std::vector<uint8_t>(4096, 0x3C));
}

// OpenCL lets an implementation run an out-of-order queue in order (ctest
// runs these tests through such an implementation as well,
// opencl_in_order_execution.all): work waiting on the host must never sit
// on the queue ahead of the work it waits for, nor ahead of work that does
// not wait for it.
TEST_F(SubmissionTest, WaitBeforeSignalOnOneSemaphore) {
  BufferPtr source = make_buffer(4096), target = make_buffer(4096);
  write(target.get(), std::vector<uint8_t>(4096, 0));
  CommandBufferPtr copy = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_copy(copy.get(), source.get(), 0,
                                          target.get(), 0, 4096));
  HALO_ASSERT_OK(halo_command_buffer_end(copy.get()));
  CommandBufferPtr fill = begin_command_buffer();
  const uint32_t pattern = 0x600DCAFE;
  HALO_ASSERT_OK(halo_command_buffer_fill(fill.get(), source.get(), 0, 4096,
                                          &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill.get()));
  SemaphorePtr timeline = make_semaphore();
  HALO_ASSERT_OK(submit(copy.get(), {timeline.get()}, {1}, {timeline.get()}, {2}));
  HALO_ASSERT_OK(submit(fill.get(), {}, {}, {timeline.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_wait(timeline.get(), 2, deadline_in_ms(20000)));
  std::vector<uint8_t> expected(4096);
  for (size_t i = 0; i < expected.size(); i += 4) {
    std::memcpy(&expected[i], &pattern, 4);
  }
  EXPECT_EQ(read(target.get(), 4096), expected);
}

TEST_F(SubmissionTest, WorkWaitingOnTheHostDoesNotHoldBackLaterWork) {
  BufferPtr gated = make_buffer(256), free_running = make_buffer(256);
  write(gated.get(), std::vector<uint8_t>(256, 0));
  const uint32_t pattern = 0x42424242;
  CommandBufferPtr fill_gated = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_fill(fill_gated.get(), gated.get(), 0,
                                          256, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill_gated.get()));
  CommandBufferPtr fill_free = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_fill(fill_free.get(), free_running.get(),
                                          0, 256, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill_free.get()));
  SemaphorePtr gate = make_semaphore(), gated_done = make_semaphore(),
               free_done = make_semaphore();
  HALO_ASSERT_OK(submit(fill_gated.get(), {gate.get()}, {1},
                        {gated_done.get()}, {1}));
  HALO_ASSERT_OK(submit(fill_free.get(), {}, {}, {free_done.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_wait(free_done.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(read(free_running.get(), 256), std::vector<uint8_t>(256, 0x42));
  Status pending(halo_semaphore_wait(gated_done.get(), 1,
                                     HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(pending.code(), HALO_STATUS_DEADLINE_EXCEEDED) << pending.describe();
  EXPECT_EQ(read(gated.get(), 256), std::vector<uint8_t>(256, 0));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_ASSERT_OK(halo_semaphore_wait(gated_done.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(read(gated.get(), 256), std::vector<uint8_t>(256, 0x42));
}

// Nothing orders the two signals here: the one held back by the gate lands
// after the other has passed it, and fails the semaphore rather than
// vanishing.
TEST_F(SubmissionTest, OvertakenSignalFailsItsSemaphore) {
  SemaphorePtr gate = make_semaphore(), timeline = make_semaphore();
  HALO_ASSERT_OK(submit(nullptr, {gate.get()}, {1}, {timeline.get()}, {1}));
  HALO_ASSERT_OK(submit(nullptr, {}, {}, {timeline.get()}, {2}));
  HALO_ASSERT_OK(halo_semaphore_wait(timeline.get(), 2, deadline_in_ms(20000)));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  Status failed(halo_semaphore_wait(timeline.get(), 2, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(failed.code(), HALO_STATUS_INVALID_ARGUMENT) << failed.describe();
  // It names the signal's value and the payload it found.
  EXPECT_NE(failed.message().find("value 1 "), std::string::npos)
      << failed.describe();
  EXPECT_NE(failed.message().find("payload 2"), std::string::npos)
      << failed.describe();
}

TEST_F(SubmissionTest, RefusedSubmissionGivesOneShotCommandBuffersBack) {
  BufferPtr buffer = make_buffer(256);
  CommandBufferPtr ready = begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT);
  const uint32_t pattern = 0x01010101;
  HALO_ASSERT_OK(halo_command_buffer_fill(ready.get(), buffer.get(), 0, 256, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(ready.get()));
  CommandBufferPtr unfinished = begin_command_buffer();
  halo_command_buffer_t* both[] = {ready.get(), unfinished.get()};
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.command_buffer_count = 2;
  info.command_buffers = both;
  Status refused(halo_device_queue_execute(device(), &info));
  EXPECT_EQ(refused.code(), HALO_STATUS_FAILED_PRECONDITION) << refused.describe();
  EXPECT_NE(refused.message().find("command_buffers[1]"), std::string::npos);
  SemaphorePtr done = make_semaphore();
  HALO_ASSERT_OK(submit(ready.get(), {}, {}, {done.get()}, {1}));
  HALO_ASSERT_OK(halo_semaphore_wait(done.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(read(buffer.get(), 256), std::vector<uint8_t>(256, 1));
  Status again(submit(ready.get(), {}, {}, {}, {}));
  EXPECT_EQ(again.code(), HALO_STATUS_FAILED_PRECONDITION) << again.describe();
}

TEST_F(SubmissionTest, SecondDeviceSharesTheContext) {
  // A second device of the same OpenCL device: its command buffers may name
  // the first's buffers and run on the first's queue, and its semaphores
  // are the first's own (ALL).
  DevicePtr second = make_second_device();
  ASSERT_NE(second, nullptr);
  halo_semaphore_t* remote = nullptr;
  halo_command_buffer_t* command_buffer = nullptr;
  Status created(halo_semaphore_create(second.get(), 0,
                                       HALO_SEMAPHORE_FLAG_NONE, &remote));
  Status recorded(halo_command_buffer_create(
      second.get(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT, &command_buffer));
  second.reset();  // The objects keep it alive.
  SemaphorePtr remote_owner(remote);
  CommandBufferPtr command_buffer_owner(command_buffer);
  ASSERT_TRUE(created.ok()) << created.describe();
  ASSERT_TRUE(recorded.ok()) << recorded.describe();
  halo_semaphore_compatibility_t compatibility = 0;
  HALO_ASSERT_OK(
      halo_device_semaphore_compatibility(device(), remote, &compatibility));
  EXPECT_EQ(compatibility,
            static_cast<uint32_t>(HALO_SEMAPHORE_COMPATIBILITY_ALL));
  BufferPtr buffer = make_buffer(256);
  const uint32_t pattern = 0x77777777;
  HALO_ASSERT_OK(halo_command_buffer_begin(command_buffer));
  HALO_ASSERT_OK(
      halo_command_buffer_fill(command_buffer, buffer.get(), 0, 256, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer));
  HALO_ASSERT_OK(submit(command_buffer, {}, {}, {remote}, {1}));
  HALO_ASSERT_OK(halo_semaphore_wait(remote, 1, deadline_in_ms(20000)));
  EXPECT_EQ(read(buffer.get(), 256), std::vector<uint8_t>(256, 0x77));
}

}  // namespace
}  // namespace halo_opencl_test
