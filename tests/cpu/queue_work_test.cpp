// The cpu queue running command buffers (DESIGN.md §5): waits before
// signals, failure propagation that skips the work, submissions that fail
// without a trace, chains, and releasing everything — the device included —
// while work is in flight.
#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using QueueWorkTest = WorkTest;

void expect_status(const Status& status, halo_status_code_t code,
                   const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.describe();
  EXPECT_NE(status.message().find(words), std::string::npos)
      << status.describe();
}

// A command buffer (of |test|'s |device|, default device() when NULL) that
// fills |buffer| with |byte|, ended.
CommandBufferPtr filler(WorkTest& test, halo_buffer_t* buffer, uint8_t byte,
                        halo_device_t* device = nullptr) {
  CommandBufferPtr command_buffer =
      test.make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device);
  HALO_EXPECT_OK(halo_command_buffer_fill(command_buffer.get(), buffer, 0,
                                          HALO_WHOLE_BUFFER, &byte, 1));
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
  return command_buffer;
}

// The command buffers run only once the wait's value is reached; a lower
// value does not release them (checked without timing: the signal has not
// happened, so the submission cannot have completed).
TEST_F(QueueWorkTest, WorkWaitsForItsSemaphoreValue) {
  BufferPtr buffer = make_buffer(64);
  auto* bytes = map<uint8_t>(buffer.get());
  std::memset(bytes, 0, 64);
  CommandBufferPtr command_buffer = filler(*this, buffer.get(), 5);
  SemaphorePtr wait = make_semaphore(0);
  SemaphorePtr done = make_semaphore(0);
  HALO_EXPECT_STATUS_OK(execute({command_buffer.get()}, {wait.get()}, {2},
                                {done.get()}, {1}));
  HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 1));
  HALO_EXPECT_OK(halo_device_queue_flush(device(), HALO_QUEUE_AFFINITY_ANY));
  EXPECT_EQ(query(done.get()), 0u);
  HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 2));
  HALO_EXPECT_OK(
      halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_FUTURE));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(bytes[i], 5);
}

// A failed wait skips the command buffers; the signal semaphore fails with
// the wait's status, and a submission waiting on that one is skipped too.
TEST_F(QueueWorkTest, AFailedWaitSkipsTheWorkAndFailsTheSignals) {
  BufferPtr buffer = make_buffer(64);
  auto* bytes = map<uint8_t>(buffer.get());
  std::memset(bytes, 0, 64);
  CommandBufferPtr first = filler(*this, buffer.get(), 1);
  CommandBufferPtr second = filler(*this, buffer.get(), 2);
  SemaphorePtr wait = make_semaphore(0);
  SemaphorePtr middle = make_semaphore(0);
  SemaphorePtr done = make_semaphore(0);
  HALO_EXPECT_STATUS_OK(
      execute({first.get()}, {wait.get()}, {1}, {middle.get()}, {1}));
  HALO_EXPECT_STATUS_OK(
      execute({second.get()}, {middle.get()}, {1}, {done.get()}, {1}));
  HALO_EXPECT_OK(halo_semaphore_fail(
      wait.get(), halo_status_create(HALO_STATUS_ABORTED, "upstream gone")));
  Status failed(
      halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_FUTURE));
  expect_status(failed, HALO_STATUS_ABORTED, "upstream gone");
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(bytes[i], 0) << "work ran";
  // The skipped ONE_SHOT command buffers were submitted all the same.
  expect_status(execute({first.get()}), HALO_STATUS_FAILED_PRECONDITION,
                "already submitted");
}

// A submission refused at submit time leaves every command buffer as it
// was: the ONE_SHOT ones it had already accepted can be submitted again.
TEST_F(QueueWorkTest, ARefusedSubmissionLeavesNoTrace) {
  BufferPtr buffer = make_buffer(64);
  CommandBufferPtr ready = filler(*this, buffer.get(), 3);
  CommandBufferPtr unended = make_command_buffer();
  expect_status(execute({ready.get(), unended.get()}),
                HALO_STATUS_FAILED_PRECONDITION,
                "info->command_buffers[1] has not been ended");
  expect_status(execute({ready.get(), ready.get()}),
                HALO_STATUS_FAILED_PRECONDITION,
                "info->command_buffers[1] is ONE_SHOT and was already");
  DevicePtr other = make_device();
  BufferPtr their_buffer = make_buffer(64, kAllUsage, kHostMemory, other.get());
  CommandBufferPtr theirs = filler(*this, their_buffer.get(), 4, other.get());
  expect_status(execute({ready.get(), theirs.get()}),
                HALO_STATUS_INVALID_ARGUMENT,
                "info->command_buffers[1] belongs to another device");
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = 2;  // No queue 1.
  halo_command_buffer_t* list[] = {ready.get()};
  info.command_buffer_count = 1;
  info.command_buffers = list;
  expect_status(Status(halo_device_queue_execute(device(), &info)),
                HALO_STATUS_INVALID_ARGUMENT, "affinity");
  SemaphorePtr done = make_semaphore(0);
  HALO_EXPECT_STATUS_OK(execute({ready.get()}, {}, {}, {done.get()}, {1}));
  HALO_EXPECT_OK(
      halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(map<uint8_t>(buffer.get())[63], 3);
}

// Each submission waits for the previous one's signal and adds one: the
// work of a chain runs in chain order.
TEST_F(QueueWorkTest, AChainOfSubmissionsRunsInOrder) {
  constexpr uint64_t kLength = 100;
  BufferPtr value = make_buffer(4);
  auto* word = map<uint32_t>(value.get());
  *word = 0;
  ExecutablePtr kernels = test_kernels();
  DispatchSpec increment;
  increment.executable = kernels.get();
  increment.entry_point = "increment";
  increment.buffers = {value.get()};
  increment.constants.add(uint32_t{1});
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), increment));
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
  SemaphorePtr chain = make_semaphore(0);
  // Submitted last-first: every wait names a value nobody promised yet.
  for (uint64_t i = kLength; i >= 1; --i) {
    HALO_EXPECT_STATUS_OK(execute({command_buffer.get()}, {chain.get()}, {i},
                                  {chain.get()}, {i + 1}));
  }
  HALO_EXPECT_OK(halo_semaphore_signal(chain.get(), 1));
  HALO_EXPECT_OK(halo_semaphore_wait(chain.get(), kLength + 1,
                                     HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(*word, kLength);
}

// Everything may be released right after submit, the device included: the
// submissions hold what they need and still run, in order. Only a readback
// buffer (which keeps the device alive) remains to look at the result.
TEST_F(QueueWorkTest, ReleasingEverythingWhileWorkIsInFlight) {
  DevicePtr other = make_device();
  BufferPtr readback = make_buffer(256, kAllUsage, kHostMemory, other.get());
  SemaphorePtr gate = make_semaphore(0);  // device()'s: outlives `other`.
  {
    BufferPtr scratch = make_buffer(256, kAllUsage, kHostMemory, other.get());
    ExecutablePtr kernels = test_kernels(other.get());
    DispatchSpec iota;
    iota.executable = kernels.get();
    iota.entry_point = "iota";
    iota.buffers = {scratch.get()};
    iota.constants.add(uint32_t{7}).add(uint32_t{64});
    CommandBufferPtr produce =
        make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, other.get());
    HALO_EXPECT_STATUS_OK(dispatch(produce.get(), iota));
    HALO_EXPECT_OK(halo_command_buffer_end(produce.get()));
    CommandBufferPtr consume =
        make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, other.get());
    HALO_EXPECT_OK(halo_command_buffer_copy(consume.get(), scratch.get(), 0,
                                            readback.get(), 0, 256));
    HALO_EXPECT_OK(halo_command_buffer_end(consume.get()));
    HALO_EXPECT_STATUS_OK(execute({produce.get()}, {gate.get()}, {1},
                                  {gate.get()}, {2}, other.get()));
    HALO_EXPECT_STATUS_OK(execute({consume.get()}, {gate.get()}, {2},
                                  {gate.get()}, {3}, other.get()));
  }  // Command buffers, executable and scratch buffer released here.
  other.reset();
  HALO_EXPECT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_EXPECT_OK(
      halo_semaphore_wait(gate.get(), 3, HALO_DEADLINE_INFINITE_FUTURE));
  auto* values = map<uint32_t>(readback.get());
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(values[i], 7 + i);
}

// With nothing at all left of the device, its last reference goes away on
// its own queue worker, after a multi-workgroup dispatch on its pool.
TEST_F(QueueWorkTest, TheLastReferenceDropsOnTheQueueWorker) {
  SemaphorePtr gate = make_semaphore(0);
  {
    DevicePtr other = make_device();
    BufferPtr data = make_buffer(4096, kAllUsage, kHostMemory, other.get());
    ExecutablePtr kernels = test_kernels(other.get());
    DispatchSpec iota;
    iota.executable = kernels.get();
    iota.entry_point = "iota";
    iota.workgroups[0] = 16;
    iota.buffers = {data.get()};
    iota.constants.add(uint32_t{0}).add(uint32_t{1024});
    CommandBufferPtr command_buffer =
        make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, other.get());
    HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), iota));
    HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
    HALO_EXPECT_STATUS_OK(execute({command_buffer.get()}, {gate.get()}, {1},
                                  {gate.get()}, {2}, other.get()));
  }
  HALO_EXPECT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_EXPECT_OK(
      halo_semaphore_wait(gate.get(), 2, HALO_DEADLINE_INFINITE_FUTURE));
}

}  // namespace
}  // namespace halo_cpu_test
