// Command buffers of the cpu device: the recording state machine, fill,
// update, copy and barrier with their results and every error, retention,
// and objects of other devices or plugins.
#include <numeric>

#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using CommandBufferTest = WorkTest;

void expect_status(const Status& status, halo_status_code_t code,
                   const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.describe();
  EXPECT_NE(status.message().find(words), std::string::npos)
      << status.describe();
}

Status fill(halo_command_buffer_t* command_buffer, halo_buffer_t* target,
            uint64_t offset, uint64_t length, uint32_t pattern,
            size_t pattern_length) {
  return Status(halo_command_buffer_fill(command_buffer, target, offset,
                                         length, &pattern, pattern_length));
}

// A buffer object of "another plugin": a header whose vtable is not the cpu
// plugin's. libhalo accepts it (right type tag and size); the plugin must
// refuse it before touching anything else.
struct ForeignBuffer {
  halo_object_t header;
  static void destroy(halo_object_t*) {}
  static const halo_buffer_vtable_t kVtable;
  ForeignBuffer() : header(HALO_OBJECT_HEADER_INIT(&kVtable)) {}
  halo_buffer_t* handle() { return reinterpret_cast<halo_buffer_t*>(this); }
};
const halo_buffer_vtable_t ForeignBuffer::kVtable = {
    {sizeof(halo_buffer_vtable_t), HALO_OBJECT_TYPE_BUFFER,
     &ForeignBuffer::destroy},
    nullptr, nullptr, nullptr, nullptr, nullptr};

TEST_F(CommandBufferTest, CreateRefusesModesOtherThanExactlyOne) {
  for (halo_command_buffer_mode_t mode : {0u, 3u, 4u, 0x80000000u}) {
    halo_command_buffer_t* command_buffer = nullptr;
    expect_status(
        Status(halo_command_buffer_create(device(), mode, &command_buffer)),
        HALO_STATUS_INVALID_ARGUMENT, "mode");
    EXPECT_EQ(command_buffer, nullptr);
  }
}

TEST_F(CommandBufferTest, CommandsNeedTheRecordingState) {
  BufferPtr buffer = make_buffer(64);
  halo_command_buffer_t* raw = nullptr;
  HALO_ASSERT_OK(halo_command_buffer_create(
      device(), HALO_COMMAND_BUFFER_MODE_REUSABLE, &raw));
  CommandBufferPtr command_buffer(raw);
  // Initial: nothing but begin.
  expect_status(fill(raw, buffer.get(), 0, 64, 0, 1),
                HALO_STATUS_FAILED_PRECONDITION, "halo_command_buffer_fill");
  expect_status(Status(halo_command_buffer_barrier(raw)),
                HALO_STATUS_FAILED_PRECONDITION, "halo_command_buffer_barrier");
  expect_status(Status(halo_command_buffer_end(raw)),
                HALO_STATUS_FAILED_PRECONDITION, "halo_command_buffer_end");
  expect_status(execute({raw}), HALO_STATUS_FAILED_PRECONDITION,
                "has not been ended");
  HALO_ASSERT_OK(halo_command_buffer_begin(raw));
  expect_status(Status(halo_command_buffer_begin(raw)),
                HALO_STATUS_FAILED_PRECONDITION, "already begun");
  expect_status(execute({raw}), HALO_STATUS_FAILED_PRECONDITION,
                "has not been ended");
  HALO_EXPECT_OK(halo_command_buffer_barrier(raw));
  HALO_ASSERT_OK(halo_command_buffer_end(raw));
  // Executable: recorded once, so no more commands, begin or end.
  uint8_t byte = 0;
  expect_status(Status(halo_command_buffer_update(raw, &byte, buffer.get(), 0,
                                                  1)),
                HALO_STATUS_FAILED_PRECONDITION, "halo_command_buffer_update");
  expect_status(Status(halo_command_buffer_copy(raw, buffer.get(), 0,
                                                buffer.get(), 32, 8)),
                HALO_STATUS_FAILED_PRECONDITION, "halo_command_buffer_copy");
  expect_status(Status(halo_command_buffer_end(raw)),
                HALO_STATUS_FAILED_PRECONDITION, "not recording");
  expect_status(Status(halo_command_buffer_begin(raw)),
                HALO_STATUS_FAILED_PRECONDITION, "already begun");
}

TEST_F(CommandBufferTest, FillRepeatsEachPatternLength) {
  BufferPtr buffer = make_buffer(256);
  auto* bytes = map<uint8_t>(buffer.get());
  std::memset(bytes, 0xEE, 256);
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_STATUS_OK(fill(command_buffer.get(), buffer.get(), 3, 13, 0xAB, 1));
  HALO_EXPECT_STATUS_OK(
      fill(command_buffer.get(), buffer.get(), 18, 30, 0x2211, 2));
  HALO_EXPECT_STATUS_OK(fill(command_buffer.get(), buffer.get(), 52, 100,
                      0x44332211, 4));
  // Equal bytes in a wide pattern, to the end of the buffer.
  HALO_EXPECT_STATUS_OK(fill(command_buffer.get(), buffer.get(), 200,
                      HALO_WHOLE_BUFFER, 0x77777777, 4));
  end_and_run(command_buffer.get());
  for (int i = 0; i < 256; ++i) {
    uint8_t expected = 0xEE;
    if (i >= 3 && i < 16) expected = 0xAB;
    if (i >= 18 && i < 48) expected = (i % 2 == 0) ? 0x11 : 0x22;
    if (i >= 52 && i < 152) expected = static_cast<uint8_t>(0x11 * (i % 4 + 1));
    if (i >= 200) expected = 0x77;
    ASSERT_EQ(bytes[i], expected) << "byte " << i;
  }
}

TEST_F(CommandBufferTest, FillErrors) {
  BufferPtr buffer = make_buffer(64);
  BufferPtr read_only = make_buffer(64, HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  CommandBufferPtr command_buffer = make_command_buffer();
  halo_command_buffer_t* cb = command_buffer.get();
  expect_status(fill(cb, buffer.get(), 2, 8, 0, 4),
                HALO_STATUS_INVALID_ARGUMENT, "multiples of pattern_length");
  expect_status(fill(cb, buffer.get(), 0, 6, 0, 4),
                HALO_STATUS_INVALID_ARGUMENT, "multiples of pattern_length");
  expect_status(fill(cb, buffer.get(), 1, 2, 0, 2),
                HALO_STATUS_INVALID_ARGUMENT, "multiples of pattern_length");
  expect_status(fill(cb, buffer.get(), 0, 3, 0, 3),
                HALO_STATUS_INVALID_ARGUMENT, "pattern_length");
  expect_status(fill(cb, buffer.get(), 60, 8, 0, 4), HALO_STATUS_OUT_OF_RANGE,
                "target");
  expect_status(fill(cb, buffer.get(), 68, HALO_WHOLE_BUFFER, 0, 4),
                HALO_STATUS_OUT_OF_RANGE, "target");
  expect_status(fill(cb, read_only.get(), 0, 4, 0, 4),
                HALO_STATUS_INVALID_ARGUMENT, "TRANSFER_TARGET");
  // A zero-length fill is valid and does nothing.
  HALO_EXPECT_STATUS_OK(fill(cb, buffer.get(), 64, 0, 0, 4));
}

TEST_F(CommandBufferTest, UpdateCopiesTheSourceAtRecordTime) {
  BufferPtr buffer = make_buffer(64);
  auto* bytes = map<uint8_t>(buffer.get());
  std::memset(bytes, 0, 64);
  std::vector<uint8_t> source(20);
  std::iota(source.begin(), source.end(), uint8_t{1});
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_OK(halo_command_buffer_update(command_buffer.get(), source.data(),
                                            buffer.get(), 5, source.size()));
  // Zero bytes with no source: valid, nothing happens.
  HALO_EXPECT_OK(halo_command_buffer_update(command_buffer.get(), nullptr,
                                            buffer.get(), 64, 0));
  std::fill(source.begin(), source.end(), uint8_t{0xFF});
  end_and_run(command_buffer.get());
  for (int i = 0; i < 64; ++i) {
    uint8_t expected = (i >= 5 && i < 25) ? static_cast<uint8_t>(i - 4) : 0;
    ASSERT_EQ(bytes[i], expected) << "byte " << i;
  }
}

TEST_F(CommandBufferTest, UpdateErrors) {
  BufferPtr buffer = make_buffer(64);
  BufferPtr read_only = make_buffer(64, HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  CommandBufferPtr command_buffer = make_command_buffer();
  uint8_t source[80] = {};
  halo_command_buffer_t* cb = command_buffer.get();
  expect_status(
      Status(halo_command_buffer_update(cb, source, buffer.get(), 0, 65)),
      HALO_STATUS_OUT_OF_RANGE, "target");
  expect_status(
      Status(halo_command_buffer_update(cb, source, buffer.get(), 65, 0)),
      HALO_STATUS_OUT_OF_RANGE, "target");
  expect_status(Status(halo_command_buffer_update(cb, source, buffer.get(), 0,
                                                  HALO_WHOLE_BUFFER)),
                HALO_STATUS_INVALID_ARGUMENT, "HALO_WHOLE_BUFFER");
  expect_status(
      Status(halo_command_buffer_update(cb, source, read_only.get(), 0, 4)),
      HALO_STATUS_INVALID_ARGUMENT, "TRANSFER_TARGET");
  expect_status(
      Status(halo_command_buffer_update(cb, nullptr, buffer.get(), 0, 4)),
      HALO_STATUS_INVALID_ARGUMENT, "source");
}

TEST_F(CommandBufferTest, CopyBetweenAndWithinBuffers) {
  BufferPtr source = make_buffer(128);
  BufferPtr target = make_buffer(128);
  auto* from = map<uint8_t>(source.get());
  auto* to = map<uint8_t>(target.get());
  std::iota(from, from + 128, uint8_t{0});
  std::memset(to, 0, 128);
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer.get(), source.get(),
                                          10, target.get(), 20, 50));
  // Within one buffer: [0, 8) to [8, 16) touch but do not overlap.
  HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer.get(), source.get(), 0,
                                          source.get(), 8, 8));
  HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer.get(), source.get(),
                                          128, target.get(), 0, 0));
  end_and_run(command_buffer.get());
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(to[i], (i >= 20 && i < 70) ? i - 10 : 0) << "target " << i;
    ASSERT_EQ(from[i], (i >= 8 && i < 16) ? i - 8 : i) << "source " << i;
  }
}

TEST_F(CommandBufferTest, CopyErrors) {
  BufferPtr buffer = make_buffer(128);
  BufferPtr no_source = make_buffer(128, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  BufferPtr no_target = make_buffer(128, HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  CommandBufferPtr command_buffer = make_command_buffer();
  halo_command_buffer_t* cb = command_buffer.get();
  auto copy = [&](halo_buffer_t* source, uint64_t source_offset,
                  halo_buffer_t* target, uint64_t target_offset,
                  uint64_t length) {
    return Status(halo_command_buffer_copy(cb, source, source_offset, target,
                                           target_offset, length));
  };
  expect_status(copy(buffer.get(), 0, buffer.get(), 4, 8),
                HALO_STATUS_INVALID_ARGUMENT, "overlap");
  expect_status(copy(buffer.get(), 8, buffer.get(), 0, 16),
                HALO_STATUS_INVALID_ARGUMENT, "overlap");
  expect_status(copy(no_source.get(), 0, buffer.get(), 0, 8),
                HALO_STATUS_INVALID_ARGUMENT, "TRANSFER_SOURCE");
  expect_status(copy(buffer.get(), 0, no_target.get(), 0, 8),
                HALO_STATUS_INVALID_ARGUMENT, "TRANSFER_TARGET");
  expect_status(copy(buffer.get(), 0, no_source.get(), 0, HALO_WHOLE_BUFFER),
                HALO_STATUS_INVALID_ARGUMENT, "HALO_WHOLE_BUFFER");
  expect_status(copy(buffer.get(), 100, no_source.get(), 0, 29),
                HALO_STATUS_OUT_OF_RANGE, "source");
  expect_status(copy(buffer.get(), 0, no_source.get(), 120, 9),
                HALO_STATUS_OUT_OF_RANGE, "target");
}

// Commands run in recorded order; a barrier between them is accepted.
TEST_F(CommandBufferTest, CommandsRunInRecordedOrder) {
  BufferPtr a = make_buffer(64);
  BufferPtr b = make_buffer(64);
  CommandBufferPtr command_buffer = make_command_buffer();
  halo_command_buffer_t* cb = command_buffer.get();
  HALO_EXPECT_STATUS_OK(fill(cb, a.get(), 0, 64, 1, 1));
  HALO_EXPECT_OK(halo_command_buffer_barrier(cb));
  HALO_EXPECT_OK(halo_command_buffer_copy(cb, a.get(), 0, b.get(), 0, 64));
  HALO_EXPECT_OK(halo_command_buffer_barrier(cb));
  HALO_EXPECT_STATUS_OK(fill(cb, a.get(), 0, 64, 2, 1));
  uint8_t three = 3;
  HALO_EXPECT_OK(halo_command_buffer_update(cb, &three, b.get(), 63, 1));
  end_and_run(cb);
  auto* a_bytes = map<uint8_t>(a.get());
  auto* b_bytes = map<uint8_t>(b.get());
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(a_bytes[i], 2);
    ASSERT_EQ(b_bytes[i], i == 63 ? 3 : 1);
  }
}

// The command buffer retains what it names, so the caller may release its
// buffers right after recording — and the command buffer right after
// submitting.
TEST_F(CommandBufferTest, RetainsItsBuffers) {
  BufferPtr source = make_buffer(64);
  BufferPtr target = make_buffer(64);
  auto* result = map<uint8_t>(target.get());
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_STATUS_OK(fill(command_buffer.get(), source.get(), 0, 64, 9, 1));
  HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer.get(), source.get(), 0,
                                          target.get(), 0, 64));
  source.reset();
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
  SemaphorePtr done = make_semaphore(0);
  HALO_EXPECT_STATUS_OK(execute({command_buffer.get()}, {}, {}, {done.get()}, {1}));
  command_buffer.reset();
  HALO_EXPECT_OK(
      halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_FUTURE));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(result[i], 9);
}

TEST_F(CommandBufferTest, BuffersOfAnotherDeviceOrPluginAreRefused) {
  DevicePtr other = make_device();
  BufferPtr mine = make_buffer(64);
  BufferPtr theirs = make_buffer(64, kAllUsage, kHostMemory, other.get());
  ForeignBuffer foreign;
  CommandBufferPtr command_buffer = make_command_buffer();
  halo_command_buffer_t* cb = command_buffer.get();
  expect_status(fill(cb, theirs.get(), 0, 4, 0, 4),
                HALO_STATUS_INVALID_ARGUMENT, "another device");
  expect_status(fill(cb, foreign.handle(), 0, 4, 0, 4),
                HALO_STATUS_INVALID_ARGUMENT, "another plugin");
  uint8_t byte = 0;
  expect_status(
      Status(halo_command_buffer_update(cb, &byte, theirs.get(), 0, 1)),
      HALO_STATUS_INVALID_ARGUMENT, "another device");
  expect_status(Status(halo_command_buffer_copy(cb, theirs.get(), 0,
                                                mine.get(), 0, 4)),
                HALO_STATUS_INVALID_ARGUMENT, "source belongs to another");
  expect_status(Status(halo_command_buffer_copy(cb, mine.get(), 0,
                                                foreign.handle(), 0, 4)),
                HALO_STATUS_INVALID_ARGUMENT, "another plugin");
  // A command buffer of another device is refused by this device's queue.
  HALO_EXPECT_OK(halo_command_buffer_end(cb));
  expect_status(execute({cb}, {}, {}, {}, {}, other.get()),
                HALO_STATUS_INVALID_ARGUMENT, "another device");
}

TEST_F(CommandBufferTest, OneShotRunsOnceReusableRunsEveryTime) {
  BufferPtr counter = make_buffer(4);
  auto* value = map<uint32_t>(counter.get());
  *value = 0;
  ExecutablePtr kernels = test_kernels();
  DispatchSpec increment;
  increment.executable = kernels.get();
  increment.entry_point = "increment";
  increment.buffers = {counter.get()};
  increment.constants.add(uint32_t{1});
  CommandBufferPtr one_shot = make_command_buffer();
  HALO_EXPECT_STATUS_OK(dispatch(one_shot.get(), increment));
  end_and_run(one_shot.get());
  expect_status(execute({one_shot.get()}), HALO_STATUS_FAILED_PRECONDITION,
                "already submitted");
  CommandBufferPtr reusable =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  HALO_EXPECT_STATUS_OK(dispatch(reusable.get(), increment));
  HALO_EXPECT_OK(halo_command_buffer_end(reusable.get()));
  SemaphorePtr done = make_semaphore(0);
  for (uint64_t i = 1; i <= 3; ++i) {
    HALO_EXPECT_STATUS_OK(
        execute({reusable.get(), reusable.get()}, {}, {}, {done.get()}, {i})
            );
  }
  HALO_EXPECT_OK(
      halo_semaphore_wait(done.get(), 3, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(*value, 7u);
}

}  // namespace
}  // namespace halo_cpu_test
