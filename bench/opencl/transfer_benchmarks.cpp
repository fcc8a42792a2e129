// Fill and copy of 64 MiB device buffers, submitted and waited for each
// iteration: the device's bandwidth, plus one submit round trip.
//
// The halo side records its command buffer once and each iteration submits
// it with one signal and blocks on that signal; the raw side enqueues the
// same clEnqueueFillBuffer / clEnqueueCopyBuffer (which is what the plugin
// replays) and blocks in clWaitForEvents on its event. Both work on
// buffers made and touched once before any benchmark runs (fixture.hpp).
#include "fixture.hpp"
#include "opencl_benchmarks.hpp"

namespace halo::bench {
namespace {

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(kTransferSize));
}

// Submits |work| once per iteration and blocks until its signal is seen.
void run_halo_loop(benchmark::State& state, halo_device_t* device,
                   halo_command_buffer_t* work) {
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  InstructionCount count(state, 1);
  for (auto _ : state) {
    ++value;
    submit(device, Timepoint{}, {done.get(), value}, work);
    wait({done.get(), value});
  }
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
  set_bytes(state);
}

}  // namespace

void fill_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  cl_command_queue queue = fixture().raw().queue();
  cl_mem target = fixture().raw_resources().target.get();
  InstructionCount count(state, 1);
  for (auto _ : state) {
    cl_event done = nullptr;
    check_cl(clEnqueueFillBuffer(queue, target, &kPattern, sizeof(kPattern), 0,
                                 kTransferSize, 0, nullptr, &done),
             "clEnqueueFillBuffer");
    wait_and_release(done);
  }
  set_bytes(state);
}

void fill_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill = begin_recording(device);
  check(halo_command_buffer_fill(fill.get(),
                                 fixture().halo_resources().target.get(), 0,
                                 kTransferSize, &kPattern, sizeof(kPattern)),
        "halo_command_buffer_fill");
  end_recording(fill.get());
  run_halo_loop(state, device, fill.get());
}

void copy_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  cl_command_queue queue = fixture().raw().queue();
  const RawResources& resources = fixture().raw_resources();
  InstructionCount count(state, 1);
  for (auto _ : state) {
    cl_event done = nullptr;
    check_cl(clEnqueueCopyBuffer(queue, resources.source.get(),
                                 resources.target.get(), 0, 0, kTransferSize,
                                 0, nullptr, &done),
             "clEnqueueCopyBuffer");
    wait_and_release(done);
  }
  set_bytes(state);
}

void copy_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  const HaloResources& resources = fixture().halo_resources();
  CommandBufferPtr copy = begin_recording(device);
  check(halo_command_buffer_copy(copy.get(), resources.source.get(), 0,
                                 resources.target.get(), 0, kTransferSize),
        "halo_command_buffer_copy");
  end_recording(copy.get());
  run_halo_loop(state, device, copy.get());
}

}  // namespace halo::bench
