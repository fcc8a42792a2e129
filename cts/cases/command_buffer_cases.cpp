// command_buffer.*: fill, update, copy and barrier commands and what they
// leave in memory (neighbouring bytes included); reuse of REUSABLE and the
// single submission of ONE_SHOT command buffers; the recording state machine
// and the status of each bad command (plugins/sdk/include/halo/sdk/
// commands.hpp lists the rules); and how submissions with command buffers
// keep the queue contract of DESIGN.md §5: work starts only after the waits
// and never after a failed one.
#include <numeric>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kCommandNeeds = kNeedBuffers | kNeedCommandBuffers | kNeedQueues;
constexpr uint8_t kBackground = 0xee;
constexpr char kFailureMessage[] = "cts: failed gate 51d2";

// A host buffer of |size| bytes, each kBackground, so that a command that
// writes past its range shows.
BufferRef background_buffer(Context& ctx, size_t size) {
  BufferRef buffer = host_buffer(ctx, size);
  const std::vector<uint8_t> bytes(size, kBackground);
  write_bytes(buffer.get(), 0, bytes.data(), size);
  return buffer;
}

// A transfer buffer of |size| bytes in DEVICE_LOCAL memory where the device
// offers it (else in host memory): where a GPU keeps its working data.
BufferRef device_buffer(Context& ctx, size_t size) {
  const bool local = (ctx.capabilities().memory_types & HALO_MEMORY_TYPE_DEVICE_LOCAL) != 0;
  return allocate_buffer(ctx.device(), size,
                         local ? HALO_MEMORY_TYPE_DEVICE_LOCAL : host_memory_type(ctx),
                         HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET);
}

// |size| bytes counting up from |first| (wrapping).
std::vector<uint8_t> counting_bytes(size_t size, uint8_t first) {
  std::vector<uint8_t> bytes(size);
  std::iota(bytes.begin(), bytes.end(), first);
  return bytes;
}

// |background| with [offset, offset + length) set to |pattern| repeated.
std::vector<uint8_t> filled(std::vector<uint8_t> background, uint64_t offset, uint64_t length,
                            const std::vector<uint8_t>& pattern) {
  for (uint64_t i = 0; i < length; ++i) background[offset + i] = pattern[i % pattern.size()];
  return background;
}

struct FillRange {
  uint64_t offset, length;
};

// Fills each range of a 64-byte background buffer with |pattern|, one
// command buffer each, and checks every byte of the buffer afterwards.
void check_fills(Context& ctx, const std::vector<uint8_t>& pattern,
                 const std::vector<FillRange>& ranges) {
  constexpr size_t kSize = 64;
  for (const FillRange& range : ranges) {
    BufferRef buffer = background_buffer(ctx, kSize);
    CommandBufferRef commands = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), range.offset,
                                           range.length, pattern.data(), pattern.size()));
    end_and_execute(ctx, commands.get());
    const uint64_t length = range.length == HALO_WHOLE_BUFFER ? kSize - range.offset : range.length;
    const std::vector<uint8_t> expected =
        filled(std::vector<uint8_t>(kSize, kBackground), range.offset, length, pattern);
    CTS_ASSERT_MSG(read_bytes(buffer.get(), 0, kSize) == expected,
                   std::to_string(pattern.size()) + "-byte fill of [" + std::to_string(range.offset) +
                       ", +" + std::to_string(length) + ") wrote other bytes or outside its range");
  }
}

// Asserts |buffer|'s first |size| bytes are all kBackground.
void check_untouched(halo_buffer_t* buffer, size_t size) {
  CTS_ASSERT_VALUES(read_bytes(buffer, 0, size), std::vector<uint8_t>(size, kBackground));
}

// After rejected commands, |commands| is still recording: a valid fill of
// byte 0x42 over the first 4 bytes of |buffer| records, and the command
// buffer ends and runs with that fill alone.
void check_still_records(Context& ctx, halo_command_buffer_t* commands, halo_buffer_t* buffer,
                         size_t size) {
  const uint8_t marker = 0x42;
  CTS_ASSERT_OK(halo_command_buffer_fill(commands, buffer, 0, 4, &marker, 1));
  end_and_execute(ctx, commands);
  CTS_ASSERT_VALUES(read_bytes(buffer, 0, size),
                    filled(std::vector<uint8_t>(size, kBackground), 0, 4, {marker}));
}

// --- fill, update, copy ---------------------------------------------------------------

HALO_CTS_CASE("command_buffer.fill.one_byte", kCommandNeeds,
              "1-byte fills at odd offsets and lengths set exactly their bytes; neighbours keep theirs") {
  check_fills(ctx, {0xa5}, {{1, 1}, {3, 5}, {7, 9}, {63, 1}, {0, 64}, {33, HALO_WHOLE_BUFFER}});
}

HALO_CTS_CASE("command_buffer.fill.two_byte", kCommandNeeds,
              "2-byte fills at offsets 2 mod 4 repeat the pattern's bytes in order; neighbours keep theirs") {
  check_fills(ctx, {0x12, 0x34}, {{2, 2}, {6, 10}, {10, 54}, {0, 64}, {42, HALO_WHOLE_BUFFER}});
}

HALO_CTS_CASE("command_buffer.fill.four_byte", kCommandNeeds,
              "4-byte fills at aligned offsets repeat the pattern's bytes in order; neighbours keep theirs") {
  check_fills(ctx, {0x01, 0x02, 0x03, 0x04},
              {{0, 4}, {4, 20}, {60, 4}, {0, 64}, {8, HALO_WHOLE_BUFFER}});
}

HALO_CTS_CASE("command_buffer.fill.every_memory_type", kCommandNeeds,
              "a 4-byte fill into a buffer of each single memory type lands (read back through a copy)") {
  constexpr size_t kSize = 1024;
  const uint8_t pattern[4] = {0xde, 0xad, 0xbe, 0xef};
  const halo_memory_type_t offered = ctx.capabilities().memory_types;
  for (halo_memory_type_t type = 1; type <= HALO_MEMORY_TYPE_HOST_CACHED; type <<= 1) {
    if ((offered & type) == 0) continue;
    BufferRef buffer = allocate_buffer(ctx.device(), kSize, type,
                                       HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                                           HALO_BUFFER_USAGE_TRANSFER_TARGET);
    CommandBufferRef commands = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), 0, HALO_WHOLE_BUFFER,
                                           pattern, 4));
    end_and_execute(ctx, commands.get());
    CTS_ASSERT_MSG(read_through_copy(ctx, buffer.get(), 0, kSize) ==
                       filled(std::vector<uint8_t>(kSize), 0, kSize, {0xde, 0xad, 0xbe, 0xef}),
                   memory_type_text(type));
  }
}

HALO_CTS_CASE("command_buffer.update.copied_at_record", kCommandNeeds,
              "update copies its source when recorded: overwriting the host source before submit changes nothing") {
  constexpr size_t kSize = 256;
  BufferRef buffer = background_buffer(ctx, kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  std::vector<uint8_t> source = counting_bytes(100, 1);
  const std::vector<uint8_t> recorded = source;
  CTS_ASSERT_OK(halo_command_buffer_update(commands.get(), source.data(), buffer.get(), 4, 100));
  std::fill(source.begin(), source.end(), uint8_t{0});
  // Frees the storage the update was recorded from: under ASan, a plugin
  // that kept the pointer fails here instead of passing by luck.
  source = std::vector<uint8_t>(100, 0x77);
  end_and_execute(ctx, commands.get());
  std::vector<uint8_t> expected(kSize, kBackground);
  std::copy(recorded.begin(), recorded.end(), expected.begin() + 4);
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, kSize), expected);
}

HALO_CTS_CASE("command_buffer.update.odd_offsets", kCommandNeeds,
              "updates of odd lengths at odd offsets (3 bytes at 1, 101 at 27, 1 at the last byte) write exactly those bytes") {
  constexpr size_t kSize = 256;
  BufferRef buffer = background_buffer(ctx, kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  std::vector<uint8_t> expected(kSize, kBackground);
  for (const FillRange range : {FillRange{1, 3}, FillRange{27, 101}, FillRange{kSize - 1, 1}}) {
    const std::vector<uint8_t> data = counting_bytes(range.length, static_cast<uint8_t>(range.offset));
    CTS_ASSERT_OK(halo_command_buffer_update(commands.get(), data.data(), buffer.get(),
                                             range.offset, range.length));
    std::copy(data.begin(), data.end(), expected.begin() + range.offset);
  }
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, kSize), expected);
}

HALO_CTS_CASE("command_buffer.copy.distinct_buffers", kCommandNeeds,
              "copies between two buffers at odd offsets move exactly the range; the rest of the target keeps its bytes") {
  constexpr size_t kSize = 4096;
  const std::vector<uint8_t> data = counting_bytes(kSize, 9);
  BufferRef source = host_buffer(ctx, kSize);
  write_bytes(source.get(), 0, data.data(), kSize);
  BufferRef target = background_buffer(ctx, kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), source.get(), 101, target.get(), 2001, 1000));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), source.get(), 0, target.get(), 0, 3));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), source.get(), kSize - 5, target.get(),
                                         kSize - 5, 5));
  end_and_execute(ctx, commands.get());
  std::vector<uint8_t> expected(kSize, kBackground);
  std::copy(data.begin() + 101, data.begin() + 1101, expected.begin() + 2001);
  std::copy(data.begin(), data.begin() + 3, expected.begin());
  std::copy(data.end() - 5, data.end(), expected.end() - 5);
  CTS_ASSERT_VALUES(read_bytes(target.get(), 0, kSize), expected);
  CTS_ASSERT_VALUES(read_bytes(source.get(), 0, kSize), data);
}

HALO_CTS_CASE("command_buffer.copy.same_buffer", kCommandNeeds,
              "copies within one buffer between adjacent or distant non-overlapping ranges, forwards and backwards") {
  constexpr size_t kSize = 1024;
  const std::vector<uint8_t> data = counting_bytes(kSize, 0);
  BufferRef buffer = host_buffer(ctx, kSize);
  write_bytes(buffer.get(), 0, data.data(), kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), buffer.get(), 0, buffer.get(), 100, 100));
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), buffer.get(), 701, buffer.get(), 300, 11));
  end_and_execute(ctx, commands.get());
  std::vector<uint8_t> expected = data;
  std::copy(data.begin(), data.begin() + 100, expected.begin() + 100);
  std::copy(data.begin() + 701, data.begin() + 712, expected.begin() + 300);
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, kSize), expected);
}

HALO_CTS_CASE("command_buffer.barrier.chain", kCommandNeeds,
              "fill -> barrier -> copy -> barrier -> update -> barrier -> copy in one command buffer each see the previous result") {
  constexpr size_t kSize = 512;
  BufferRef first = device_buffer(ctx, kSize);
  BufferRef second = device_buffer(ctx, kSize);
  BufferRef result = background_buffer(ctx, kSize);
  const uint8_t pattern[2] = {0xab, 0xcd};
  const std::vector<uint8_t> update = counting_bytes(16, 0x60);
  CommandBufferRef commands = begin_commands(ctx.device());
  halo_command_buffer_t* cb = commands.get();
  CTS_ASSERT_OK(halo_command_buffer_fill(cb, first.get(), 0, kSize, pattern, 2));
  CTS_ASSERT_OK(halo_command_buffer_barrier(cb));
  CTS_ASSERT_OK(halo_command_buffer_copy(cb, first.get(), 0, second.get(), 0, kSize));
  CTS_ASSERT_OK(halo_command_buffer_barrier(cb));
  CTS_ASSERT_OK(halo_command_buffer_update(cb, update.data(), second.get(), 32, update.size()));
  CTS_ASSERT_OK(halo_command_buffer_barrier(cb));
  CTS_ASSERT_OK(halo_command_buffer_copy(cb, second.get(), 16, result.get(), 0, kSize - 16));
  end_and_execute(ctx, cb);
  std::vector<uint8_t> expected = filled(std::vector<uint8_t>(kSize, kBackground), 0, kSize - 16,
                                         {0xab, 0xcd});  // second[16..] starts on an even byte.
  std::copy(update.begin(), update.end(), expected.begin() + 16);
  CTS_ASSERT_VALUES(read_bytes(result.get(), 0, kSize), expected);
}

// --- modes and submission -------------------------------------------------------------

HALO_CTS_CASE("command_buffer.reuse.one_hundred_times", kCommandNeeds,
              "a REUSABLE copy runs on each of 100 submissions: a ONE_SHOT after each logs and clears its target") {
  constexpr uint32_t kRuns = 100;
  const uint32_t word = 0xa1b2c3d4;
  BufferRef source = host_buffer(ctx, 4);
  write_values<uint32_t>(source.get(), {word});
  BufferRef target = host_buffer(ctx, 4);
  write_values<uint32_t>(target.get(), {0});
  BufferRef log = host_buffer(ctx, kRuns * 4);
  write_values(log.get(), std::vector<uint32_t>(kRuns, 0));
  CommandBufferRef reusable = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
  CTS_ASSERT_OK(halo_command_buffer_copy(reusable.get(), source.get(), 0, target.get(), 0, 4));
  CTS_ASSERT_OK(halo_command_buffer_end(reusable.get()));
  const uint32_t zero = 0;
  for (uint32_t run = 0; run < kRuns; ++run) {
    execute(ctx, {reusable.get()});
    CommandBufferRef logger = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_copy(logger.get(), target.get(), 0, log.get(), run * 4, 4));
    CTS_ASSERT_OK(halo_command_buffer_barrier(logger.get()));
    CTS_ASSERT_OK(halo_command_buffer_fill(logger.get(), target.get(), 0, 4, &zero, 4));
    end_and_execute(ctx, logger.get());
  }
  CTS_ASSERT_VALUES(read_values<uint32_t>(log.get(), kRuns), std::vector<uint32_t>(kRuns, word));
}

HALO_CTS_CASE("command_buffer.one_shot.submit_twice", kCommandNeeds,
              "a ONE_SHOT command buffer submitted a second time is FAILED_PRECONDITION; that submission signals nothing") {
  BufferRef buffer = background_buffer(ctx, 16);
  CommandBufferRef commands = begin_commands(ctx.device());
  const uint8_t byte = 0x11;
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), 0, 16, &byte, 1));
  end_and_execute(ctx, commands.get());
  halo_semaphore_t* second = ctx.semaphore(0);
  CTS_ASSERT_STATUS(submit(ctx.device(), {commands.get()}, {}, {}, {second}, {1}),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(second), 0u);
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, 16), std::vector<uint8_t>(16, byte));
}

HALO_CTS_CASE("command_buffer.one_shot.listed_twice", kCommandNeeds,
              "one ONE_SHOT command buffer listed twice in a submission is FAILED_PRECONDITION; it can then still be submitted once") {
  BufferRef buffer = background_buffer(ctx, 16);
  CommandBufferRef commands = begin_commands(ctx.device());
  const uint8_t byte = 0x22;
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), 0, 16, &byte, 1));
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  halo_semaphore_t* refused = ctx.semaphore(0);
  CTS_ASSERT_STATUS(submit(ctx.device(), {commands.get(), commands.get()}, {}, {}, {refused}, {1}),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(refused), 0u);
  check_untouched(buffer.get(), 16);
  execute(ctx, {commands.get()});
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, 16), std::vector<uint8_t>(16, byte));
}

HALO_CTS_CASE("command_buffer.empty.runs", kCommandNeeds,
              "an empty ONE_SHOT runs once and an empty REUSABLE three times, each signalling its semaphore") {
  CommandBufferRef one_shot = begin_commands(ctx.device());
  end_and_execute(ctx, one_shot.get());
  CommandBufferRef reusable = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
  CTS_ASSERT_OK(halo_command_buffer_end(reusable.get()));
  for (int i = 0; i < 3; ++i) execute(ctx, {reusable.get()});
}

HALO_CTS_CASE("command_buffer.submit.several", kCommandNeeds,
              "one submission of three command buffers (fill, update, copy into disjoint ranges) has run all three at its signal") {
  BufferRef buffer = background_buffer(ctx, 48);
  BufferRef source = host_buffer(ctx, 16);
  const std::vector<uint8_t> copied = counting_bytes(16, 0x90), updated = counting_bytes(16, 0x30);
  write_bytes(source.get(), 0, copied.data(), 16);
  CommandBufferRef fill = begin_commands(ctx.device());
  const uint8_t byte = 0x5c;
  CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), buffer.get(), 0, 16, &byte, 1));
  CommandBufferRef update = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_update(update.get(), updated.data(), buffer.get(), 16, 16));
  CommandBufferRef copy = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_copy(copy.get(), source.get(), 0, buffer.get(), 32, 16));
  for (halo_command_buffer_t* cb : {fill.get(), update.get(), copy.get()}) {
    CTS_ASSERT_OK(halo_command_buffer_end(cb));
  }
  execute(ctx, {fill.get(), update.get(), copy.get()});
  std::vector<uint8_t> expected(16, byte);
  expected.insert(expected.end(), updated.begin(), updated.end());
  expected.insert(expected.end(), copied.begin(), copied.end());
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, 48), expected);
}

HALO_CTS_CASE("command_buffer.submit.chained", kCommandNeeds,
              "a copy submitted first, waiting on a fill's submission made after it, sees the fill's result") {
  constexpr size_t kSize = 4096;
  BufferRef first = device_buffer(ctx, kSize);
  BufferRef second = background_buffer(ctx, kSize);
  const uint32_t pattern = 0x600dcafe;
  CommandBufferRef fill = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), first.get(), 0, kSize, &pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_end(fill.get()));
  CommandBufferRef copy = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_copy(copy.get(), first.get(), 0, second.get(), 0, kSize));
  CTS_ASSERT_OK(halo_command_buffer_end(copy.get()));
  halo_semaphore_t* timeline = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {copy.get()}, {timeline}, {1}, {timeline}, {2}));
  CTS_ASSERT_OK(submit(ctx.device(), {fill.get()}, {}, {}, {timeline}, {1}));
  CTS_ASSERT_OK(halo_semaphore_wait(timeline, 2, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_VALUES(read_values<uint32_t>(second.get(), kSize / 4),
                    std::vector<uint32_t>(kSize / 4, pattern));
}

HALO_CTS_CASE("command_buffer.submit.waits_before_running", kCommandNeeds,
              "a gated copy submitted before the host writes its source copies what the host wrote, once the gate opens") {
  constexpr size_t kSize = 1024;
  BufferRef source = host_buffer(ctx, kSize);
  const std::vector<uint8_t> before(kSize, 0x01), after = counting_bytes(kSize, 0x40);
  write_bytes(source.get(), 0, before.data(), kSize);
  BufferRef target = background_buffer(ctx, kSize);
  CommandBufferRef copy = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_copy(copy.get(), source.get(), 0, target.get(), 0, kSize));
  CTS_ASSERT_OK(halo_command_buffer_end(copy.get()));
  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {copy.get()}, {gate.get()}, {1}, {done}, {1}));
  CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  // Nothing may touch |source| until the gate opens, so this write is the
  // one the copy must see.
  write_bytes(source.get(), 0, after.data(), kSize);
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_VALUES(read_bytes(target.get(), 0, kSize), after);
}

HALO_CTS_CASE("command_buffer.submit.all_but_one_wait", kCommandNeeds,
              "a fill waiting on two semaphores does not run while either is short: its signal stays unreached for 30 ms, and the fill lands once both are signalled") {
  constexpr size_t kSize = 256;
  constexpr int64_t kNotYetMs = 30;  // Time for work that started early to show.
  const uint8_t byte = 0x3c;
  for (int last = 0; last < 2; ++last) {
    BufferRef target = background_buffer(ctx, kSize);
    CommandBufferRef fill = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_fill(fill.get(), target.get(), 0, kSize, &byte, 1));
    CTS_ASSERT_OK(halo_command_buffer_end(fill.get()));
    Gate first(ctx.device()), second(ctx.device());
    halo_semaphore_t* done = ctx.semaphore(0);
    CTS_ASSERT_OK(submit(ctx.device(), {fill.get()}, {first.get(), second.get()}, {1, 1},
                         {done}, {1}));
    (last == 0 ? second : first).open();
    CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, deadline_in_ms(kNotYetMs)),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    (last == 0 ? first : second).open();
    CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_VALUES(read_bytes(target.get(), 0, kSize), std::vector<uint8_t>(kSize, byte));
  }
}

HALO_CTS_CASE("command_buffer.submit.failed_wait", kCommandNeeds,
              "when the wait semaphore fails, the command buffer never runs and the signal fails with the same code and message") {
  BufferRef buffer = background_buffer(ctx, 256);
  CommandBufferRef commands = begin_commands(ctx.device());
  const uint8_t byte = 0x99;
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), 0, 256, &byte, 1));
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {commands.get()}, {gate.get()}, {1}, {done}, {1}));
  gate.fail(HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  check_untouched(buffer.get(), 256);
}

// --- recording state and bad commands ----------------------------------------------------

HALO_CTS_CASE("command_buffer.create.bad_mode", kNeedCommandBuffers,
              "mode 0, ONE_SHOT|REUSABLE or an unknown bit is INVALID_ARGUMENT naming halo_command_buffer_create") {
  for (halo_command_buffer_mode_t mode :
       {0u, HALO_COMMAND_BUFFER_MODE_ONE_SHOT | HALO_COMMAND_BUFFER_MODE_REUSABLE, 1u << 2, 1u << 31}) {
    CommandBufferRef commands;
    CTS_ASSERT_INVALID(halo_command_buffer_create(ctx.device(), mode, commands.out()),
                       "halo_command_buffer_create");
    CTS_ASSERT(commands.get() == nullptr);
  }
}

// Records one of every command into |commands| and asserts each is
// FAILED_PRECONDITION (|commands| is not recording).
void check_not_recording(halo_command_buffer_t* commands, halo_buffer_t* buffer) {
  const uint8_t byte = 1;
  CTS_ASSERT_STATUS(halo_command_buffer_fill(commands, buffer, 0, 4, &byte, 1),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_command_buffer_update(commands, &byte, buffer, 0, 1),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_command_buffer_copy(commands, buffer, 0, buffer, 8, 4),
                    HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_command_buffer_barrier(commands), HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_STATUS(halo_command_buffer_end(commands), HALO_STATUS_FAILED_PRECONDITION);
}

HALO_CTS_CASE("command_buffer.state.before_begin", kCommandNeeds,
              "fill, update, copy, barrier and end before begin are FAILED_PRECONDITION; begin then works") {
  BufferRef buffer = background_buffer(ctx, 16);
  CommandBufferRef commands;
  CTS_ASSERT_OK(halo_command_buffer_create(ctx.device(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                           commands.out()));
  check_not_recording(commands.get(), buffer.get());
  CTS_ASSERT_OK(halo_command_buffer_begin(commands.get()));
  check_still_records(ctx, commands.get(), buffer.get(), 16);
}

HALO_CTS_CASE("command_buffer.state.after_end", kCommandNeeds,
              "every command, end and begin after end are FAILED_PRECONDITION; the recorded commands still run") {
  BufferRef buffer = background_buffer(ctx, 16);
  CommandBufferRef commands = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
  const uint8_t byte = 0x31;
  CTS_ASSERT_OK(halo_command_buffer_fill(commands.get(), buffer.get(), 0, 8, &byte, 1));
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  check_not_recording(commands.get(), buffer.get());
  CTS_ASSERT_STATUS(halo_command_buffer_begin(commands.get()), HALO_STATUS_FAILED_PRECONDITION);
  execute(ctx, {commands.get()});
  CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, 16),
                    filled(std::vector<uint8_t>(16, kBackground), 0, 8, {byte}));
}

HALO_CTS_CASE("command_buffer.state.begin_twice", kCommandNeeds,
              "a second begin is FAILED_PRECONDITION and leaves the command buffer recording") {
  BufferRef buffer = background_buffer(ctx, 16);
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_STATUS(halo_command_buffer_begin(commands.get()), HALO_STATUS_FAILED_PRECONDITION);
  check_still_records(ctx, commands.get(), buffer.get(), 16);
}

HALO_CTS_CASE("command_buffer.state.submit_not_ended", kCommandNeeds,
              "submitting a command buffer never begun, or begun but not ended, is FAILED_PRECONDITION and signals nothing") {
  for (halo_command_buffer_mode_t mode :
       {HALO_COMMAND_BUFFER_MODE_ONE_SHOT, HALO_COMMAND_BUFFER_MODE_REUSABLE}) {
    BufferRef buffer = background_buffer(ctx, 16);
    CommandBufferRef fresh;
    CTS_ASSERT_OK(halo_command_buffer_create(ctx.device(), mode, fresh.out()));
    CommandBufferRef recording = begin_commands(ctx.device(), mode);
    const uint8_t byte = 0x44;
    CTS_ASSERT_OK(halo_command_buffer_fill(recording.get(), buffer.get(), 0, 16, &byte, 1));
    halo_semaphore_t* refused = ctx.semaphore(0);
    CTS_ASSERT_STATUS(submit(ctx.device(), {fresh.get()}, {}, {}, {refused}, {1}),
                      HALO_STATUS_FAILED_PRECONDITION);
    CTS_ASSERT_STATUS(submit(ctx.device(), {recording.get()}, {}, {}, {refused}, {1}),
                      HALO_STATUS_FAILED_PRECONDITION);
    CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
    CTS_ASSERT_EQ(value_of(refused), 0u);
    check_untouched(buffer.get(), 16);
    end_and_execute(ctx, recording.get());
    CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, 16), std::vector<uint8_t>(16, byte));
  }
}

HALO_CTS_CASE("command_buffer.record.out_of_range", kCommandNeeds,
              "fills, updates and copies past a buffer's end (or overflowing) are OUT_OF_RANGE; the command buffer still records") {
  constexpr uint64_t kSize = 64;
  BufferRef buffer = background_buffer(ctx, kSize);
  BufferRef other = background_buffer(ctx, kSize);
  CommandBufferRef commands = begin_commands(ctx.device());
  halo_command_buffer_t* cb = commands.get();
  const uint32_t pattern = 0;
  const std::vector<uint8_t> data(128, 0);
  halo_buffer_t* b = buffer.get();
  const uint64_t kHuge = UINT64_MAX - 3;  // A multiple of 4, so only the range is wrong.
  CTS_ASSERT_STATUS(halo_command_buffer_fill(cb, b, kSize + 4, 4, &pattern, 4), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_fill(cb, b, 60, 8, &pattern, 4), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_fill(cb, b, 8, kHuge, &pattern, 4), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_update(cb, data.data(), b, 0, kSize + 1), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_update(cb, data.data(), b, kSize, 1), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_update(cb, data.data(), b, kHuge, 8), HALO_STATUS_OUT_OF_RANGE);
  halo_buffer_t* o = other.get();
  CTS_ASSERT_STATUS(halo_command_buffer_copy(cb, o, 60, b, 0, 8), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_copy(cb, o, 0, b, 60, 8), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_copy(cb, o, kSize + 1, b, 0, 0), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_copy(cb, o, 0, b, kHuge, 8), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_command_buffer_copy(cb, o, 4, b, 0, UINT64_MAX - 1), HALO_STATUS_OUT_OF_RANGE);
  check_still_records(ctx, cb, b, kSize);
  check_untouched(o, kSize);
}

HALO_CTS_CASE("command_buffer.record.misaligned_fill", kCommandNeeds,
              "fills whose offset or length is not a multiple of the pattern length are INVALID_ARGUMENT naming halo_command_buffer_fill") {
  BufferRef buffer = background_buffer(ctx, 64);
  CommandBufferRef commands = begin_commands(ctx.device());
  const uint32_t pattern = 0;
  struct Bad {
    uint64_t offset, length;
    size_t pattern_length;
  };
  for (const Bad& bad : {Bad{1, 2, 2}, Bad{0, 3, 2}, Bad{2, 4, 4}, Bad{4, 6, 4}, Bad{1, 4, 4},
                         Bad{6, HALO_WHOLE_BUFFER, 4}}) {
    CTS_ASSERT_INVALID(halo_command_buffer_fill(commands.get(), buffer.get(), bad.offset,
                                                bad.length, &pattern, bad.pattern_length),
                       "halo_command_buffer_fill");
  }
  check_still_records(ctx, commands.get(), buffer.get(), 64);
}

HALO_CTS_CASE("command_buffer.record.overlapping_copy", kCommandNeeds,
              "copies within one buffer whose ranges overlap (partly, wholly, either direction) are INVALID_ARGUMENT") {
  BufferRef buffer = background_buffer(ctx, 256);
  CommandBufferRef commands = begin_commands(ctx.device());
  struct Overlap {
    uint64_t source, target, length;
  };
  for (const Overlap& bad : {Overlap{0, 50, 100}, Overlap{50, 0, 100}, Overlap{10, 10, 10},
                             Overlap{0, 99, 100}, Overlap{100, 1, 100}}) {
    CTS_ASSERT_INVALID(halo_command_buffer_copy(commands.get(), buffer.get(), bad.source,
                                                buffer.get(), bad.target, bad.length),
                       "halo_command_buffer_copy");
  }
  check_still_records(ctx, commands.get(), buffer.get(), 256);
}

HALO_CTS_CASE("command_buffer.record.missing_usage", kCommandNeeds,
              "fill/update targets without TRANSFER_TARGET and copy sources without TRANSFER_SOURCE are INVALID_ARGUMENT") {
  const halo_memory_type_t type = host_memory_type(ctx);
  BufferRef no_target = allocate_buffer(ctx.device(), 64, type,
                                        HALO_BUFFER_USAGE_MAPPING | HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  BufferRef no_source = allocate_buffer(ctx.device(), 64, type,
                                        HALO_BUFFER_USAGE_MAPPING | HALO_BUFFER_USAGE_TRANSFER_TARGET);
  BufferRef buffer = background_buffer(ctx, 64);
  CommandBufferRef commands = begin_commands(ctx.device());
  halo_command_buffer_t* cb = commands.get();
  const uint32_t pattern = 0;
  CTS_ASSERT_INVALID(halo_command_buffer_fill(cb, no_target.get(), 0, 4, &pattern, 4),
                     "halo_command_buffer_fill");
  CTS_ASSERT_INVALID(halo_command_buffer_update(cb, &pattern, no_target.get(), 0, 4),
                     "halo_command_buffer_update");
  CTS_ASSERT_INVALID(halo_command_buffer_copy(cb, buffer.get(), 0, no_target.get(), 0, 4),
                     "halo_command_buffer_copy");
  CTS_ASSERT_INVALID(halo_command_buffer_copy(cb, no_source.get(), 0, buffer.get(), 0, 4),
                     "halo_command_buffer_copy");
  check_still_records(ctx, cb, buffer.get(), 64);
}

HALO_CTS_CASE("command_buffer.record.whole_buffer_length", kCommandNeeds,
              "update and copy with length HALO_WHOLE_BUFFER are INVALID_ARGUMENT (their length is explicit)") {
  BufferRef buffer = background_buffer(ctx, 64);
  BufferRef other = background_buffer(ctx, 64);
  CommandBufferRef commands = begin_commands(ctx.device());
  const std::vector<uint8_t> data(64, 0);
  CTS_ASSERT_INVALID(halo_command_buffer_update(commands.get(), data.data(), buffer.get(), 0,
                                                HALO_WHOLE_BUFFER),
                     "halo_command_buffer_update");
  CTS_ASSERT_INVALID(halo_command_buffer_copy(commands.get(), other.get(), 0, buffer.get(), 0,
                                              HALO_WHOLE_BUFFER),
                     "halo_command_buffer_copy");
  check_still_records(ctx, commands.get(), buffer.get(), 64);
}

HALO_CTS_CASE("command_buffer.record.zero_length", kCommandNeeds,
              "fills, updates and copies of length 0 (also at offset == size) are OK and change nothing") {
  BufferRef buffer = background_buffer(ctx, 64);
  BufferRef other = background_buffer(ctx, 64);
  CommandBufferRef commands = begin_commands(ctx.device());
  halo_command_buffer_t* cb = commands.get();
  const uint32_t pattern = 0;
  CTS_ASSERT_OK(halo_command_buffer_fill(cb, buffer.get(), 8, 0, &pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_fill(cb, buffer.get(), 64, HALO_WHOLE_BUFFER, &pattern, 4));
  CTS_ASSERT_OK(halo_command_buffer_update(cb, &pattern, buffer.get(), 64, 0));
  CTS_ASSERT_OK(halo_command_buffer_copy(cb, other.get(), 0, buffer.get(), 3, 0));
  CTS_ASSERT_OK(halo_command_buffer_copy(cb, buffer.get(), 5, buffer.get(), 5, 0));
  CTS_ASSERT_OK(halo_command_buffer_copy(cb, other.get(), 64, buffer.get(), 64, 0));
  end_and_execute(ctx, cb);
  check_untouched(buffer.get(), 64);
}

}  // namespace
