// lifetime.*: releasing buffers, executables, command buffers and devices
// while work that uses them is still pending (DESIGN.md §5: everything a
// submission names is retained until it completes). The work is held back
// by a gate semaphore until everything is released, so a plugin that frees
// too early runs the work on freed memory: wrong results here, and a report
// under AddressSanitizer.
#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kLifetimeNeeds =
    kNeedBuffers | kNeedCommandBuffers | kNeedDispatch | kNeedQueues;
constexpr uint32_t kCount = 200;
constexpr char kFailureMessage[] = "cts: failed gate 7e03";

// Gated work and everything it uses, on one device: saxpy over x and y,
// then a copy of y into |readback|, the one buffer a case may keep.
struct SaxpyWork {
  SaxpyWork(Context& ctx, halo_device_t* device)
      : x(host_buffer(ctx, kCount * 4, device)),
        y(host_buffer(ctx, kCount * 4, device)),
        readback(host_buffer(ctx, kCount * 4, device)),
        saxpy(load_kernel(ctx, "saxpy", device)),
        commands(begin_commands(device)) {
    std::vector<float> x_values(kCount), y_values(kCount);
    for (uint32_t i = 0; i < kCount; ++i) {
      x_values[i] = static_cast<float>(i);
      y_values[i] = 1.0f;
      expected.push_back(4.0f * x_values[i] + y_values[i]);
    }
    write_values(x.get(), x_values);
    write_values(y.get(), y_values);
    write_values(readback.get(), std::vector<float>(kCount, -1.0f));
    record_dispatch(commands.get(), saxpy.get(), workgroups_for(kCount), {y.get(), x.get()},
                    SaxpyConstants{4.0f, kCount});
    CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), y.get(), 0, readback.get(), 0, kCount * 4));
    CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  }

  // Submits the work to wait for |gate| = 1 and signal |done| = 1.
  void submit_gated(halo_device_t* device, const Gate& gate, halo_semaphore_t* done) {
    CTS_ASSERT_OK(submit(device, {commands.get()}, {gate.get()}, {1}, {done}, {1}));
  }
  // Releases the case's references to everything but |readback|.
  void release_all_but_readback() {
    x.reset();
    y.reset();
    saxpy.reset();
    commands.reset();
  }
  void check_result() {
    CTS_ASSERT_VALUES(read_values<float>(readback.get(), kCount), expected);
  }

  BufferRef x, y, readback;
  ExecutableRef saxpy;
  CommandBufferRef commands;
  std::vector<float> expected;
};

// Asserts |done| has not been reached: the gate holds the work back.
void check_pending(halo_semaphore_t* done) {
  CTS_ASSERT_STATUS(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
}

HALO_CTS_CASE("lifetime.release.after_submit", kLifetimeNeeds,
              "buffers, executable and command buffer released right after a gated submit: the work still runs, results exact") {
  SaxpyWork work(ctx, ctx.device());
  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);
  work.submit_gated(ctx.device(), gate, done);
  work.release_all_but_readback();
  check_pending(done);
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
  work.check_result();
}

HALO_CTS_CASE("lifetime.release.device_in_flight", kLifetimeNeeds,
              "a device released with gated work pending: after the gate opens the work completes, its signal is seen, results exact") {
  DeviceRef device = create_case_device(ctx);
  SaxpyWork work(ctx, device.get());
  Gate gate(device.get());
  halo_semaphore_t* done = ctx.semaphore(0, device.get());
  work.submit_gated(device.get(), gate, done);
  work.release_all_but_readback();
  device.reset();
  check_pending(done);
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
  work.check_result();
}

HALO_CTS_CASE("lifetime.release.only_semaphores_left", kLifetimeNeeds,
              "the last reference to the device and every resource dropped with gated work pending; only the semaphores remain, and the signal comes") {
  DeviceRef device = create_case_device(ctx);
  Gate gate(device.get());
  SemaphoreRef done;
  CTS_ASSERT_OK(halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAG_NONE, done.out()));
  {
    SaxpyWork work(ctx, device.get());
    work.submit_gated(device.get(), gate, done.get());
  }
  device.reset();
  check_pending(done.get());
  gate.open();
  CTS_ASSERT_OK(halo_semaphore_wait(done.get(), 1, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(done.get()), 1u);
}

HALO_CTS_CASE("lifetime.release.failed_gate", kLifetimeNeeds,
              "with the device and every resource released, failing the gate fails the pending work's signal with the same code and message") {
  DeviceRef device = create_case_device(ctx);
  Gate gate(device.get());
  SemaphoreRef done;
  CTS_ASSERT_OK(halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAG_NONE, done.out()));
  {
    SaxpyWork work(ctx, device.get());
    work.submit_gated(device.get(), gate, done.get());
  }
  device.reset();
  gate.fail(HALO_STATUS_ABORTED, kFailureMessage);
  CTS_ASSERT_FAILURE(halo_semaphore_wait(done.get(), 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

HALO_CTS_CASE("lifetime.release.many_in_flight", kLifetimeNeeds,
              "100 gated submissions, each with its own buffers, executable and command buffer released at once, all run once the gate opens") {
  constexpr uint32_t kSubmissions = 100, kElements = 64;
  BufferRef readback = host_buffer(ctx, kSubmissions * kElements * 4);
  write_values(readback.get(), std::vector<uint32_t>(kSubmissions * kElements, 0));
  Gate gate(ctx.device());
  std::vector<halo_semaphore_t*> done;
  std::vector<uint64_t> ones(kSubmissions, 1);
  std::vector<uint32_t> expected;
  for (uint32_t s = 0; s < kSubmissions; ++s) {
    BufferRef scratch = host_buffer(ctx, kElements * 4);
    ExecutableRef fill = load_kernel(ctx, "fill_index");
    CommandBufferRef commands = begin_commands(ctx.device());
    record_dispatch(commands.get(), fill.get(), 1, {scratch.get()},
                    FillIndexConstants{s * 1000, kElements});
    CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), scratch.get(), 0, readback.get(),
                                           s * kElements * 4, kElements * 4));
    CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
    done.push_back(ctx.semaphore(0));
    CTS_ASSERT_OK(submit(ctx.device(), {commands.get()}, {gate.get()}, {1}, {done.back()}, {1}));
    for (uint32_t i = 0; i < kElements; ++i) expected.push_back(s * 1000 + i);
  }  // Each iteration's scratch, executable and command buffer are released here.
  gate.open();
  CTS_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, done.size(), done.data(), ones.data(),
                                     deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), expected.size()), expected);
}

HALO_CTS_CASE("lifetime.command_buffer.retains_resources", kLifetimeNeeds,
              "a REUSABLE command buffer keeps what it recorded: buffers and executables released before end still work on two submissions") {
  constexpr uint32_t kElements = 100;
  BufferRef readback = host_buffer(ctx, kElements * 4);
  CommandBufferRef commands = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
  {
    BufferRef scratch = host_buffer(ctx, kElements * 4);
    ExecutableRef fill = load_kernel(ctx, "fill_index"), add_one = load_kernel(ctx, "add_one");
    record_dispatch(commands.get(), fill.get(), workgroups_for(kElements), {scratch.get()},
                    FillIndexConstants{40, kElements});
    CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    record_dispatch(commands.get(), add_one.get(), workgroups_for(kElements), {scratch.get()},
                    CountConstants{kElements});
    CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), scratch.get(), 0, readback.get(), 0,
                                           kElements * 4));
  }
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  std::vector<uint32_t> expected(kElements);
  for (uint32_t i = 0; i < kElements; ++i) expected[i] = 41 + i;
  for (int run = 0; run < 2; ++run) {
    write_values(readback.get(), std::vector<uint32_t>(kElements, 0));
    execute(ctx, {commands.get()});
    CTS_ASSERT_VALUES(read_values<uint32_t>(readback.get(), kElements), expected);
  }
}

HALO_CTS_CASE("lifetime.retain.resources", kLifetimeNeeds,
              "an extra retain keeps a buffer, executable and command buffer usable after the creator's release") {
  BufferRef buffer = host_buffer(ctx, 256);
  ExecutableRef fill = load_kernel(ctx, "fill_index");
  CommandBufferRef commands = begin_commands(ctx.device());
  halo_buffer_retain(buffer.get());
  halo_executable_retain(fill.get());
  halo_command_buffer_retain(commands.get());
  // The creator's references go; the retained ones keep the objects.
  BufferRef kept_buffer(buffer.get());
  ExecutableRef kept_fill(fill.get());
  CommandBufferRef kept_commands(commands.get());
  buffer.reset();
  fill.reset();
  commands.reset();
  CTS_ASSERT_EQ(halo_buffer_size(kept_buffer.get()), 256u);
  uint32_t count = 0;
  CTS_ASSERT_OK(halo_executable_entry_point_count(kept_fill.get(), &count));
  CTS_ASSERT_EQ(count, 1u);
  record_dispatch(kept_commands.get(), kept_fill.get(), 1, {kept_buffer.get()},
                  FillIndexConstants{8, 64});
  end_and_execute(ctx, kept_commands.get());
  std::vector<uint32_t> expected(64);
  for (uint32_t i = 0; i < 64; ++i) expected[i] = 8 + i;
  CTS_ASSERT_VALUES(read_values<uint32_t>(kept_buffer.get(), 64), expected);
}

HALO_CTS_CASE("lifetime.release.unsubmitted", kLifetimeNeeds,
              "command buffers released while recording, or ended but never submitted, free what they hold; the device works on") {
  {
    BufferRef buffer = host_buffer(ctx, 256);
    ExecutableRef fill = load_kernel(ctx, "fill_index");
    CommandBufferRef recording = begin_commands(ctx.device());
    CommandBufferRef ended = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
    for (halo_command_buffer_t* cb : {recording.get(), ended.get()}) {
      record_dispatch(cb, fill.get(), 1, {buffer.get()}, FillIndexConstants{0, 64});
      const uint8_t byte = 1;
      CTS_ASSERT_OK(halo_command_buffer_fill(cb, buffer.get(), 0, 4, &byte, 1));
    }
    CTS_ASSERT_OK(halo_command_buffer_end(ended.get()));
    buffer.reset();  // The command buffers now hold the last references.
    fill.reset();
  }
  SaxpyWork work(ctx, ctx.device());
  execute(ctx, {work.commands.get()});
  work.check_result();
}

}  // namespace
