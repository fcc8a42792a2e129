// Fill and copy of 64 MiB device buffers, submitted and waited for each
// iteration: the device's bandwidth, plus one submit round trip.
//
// The halo side records its command buffer once and each iteration submits
// it with one signal and blocks on that signal; the raw side issues what
// the plugin replays (cuMemsetD32Async for a 4-byte pattern,
// cuMemcpyDtoDAsync) on its stream and blocks on a blocking-sync event
// recorded after it. Both work on cuMemAlloc memory made and touched once
// before any benchmark runs (fixture.hpp).
#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

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
  for (auto _ : state) {
    ++value;
    submit(device, Timepoint{}, {done.get(), value}, work);
    wait({done.get(), value});
  }
  wait_idle(device);
  set_bytes(state);
}

}  // namespace

void fill_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const CUdeviceptr target = fixture().raw_resources().target.get();
  CuEvent done = make_event(kBlockingSyncEvent);
  for (auto _ : state) {
    check_cu(cuMemsetD32Async(target, kPattern, kTransferSize / sizeof(kPattern),
                              raw.stream()),
             "cuMemsetD32Async");
    record_and_sync(done.get(), raw.stream());
  }
  set_bytes(state);
}

void fill_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill = record_fill(
      device, fixture().halo_resources().target.get(), kTransferSize, kPattern);
  run_halo_loop(state, device, fill.get());
}

void copy_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const RawResources& resources = fixture().raw_resources();
  CuEvent done = make_event(kBlockingSyncEvent);
  for (auto _ : state) {
    check_cu(cuMemcpyDtoDAsync(resources.target.get(), resources.source.get(),
                               kTransferSize, raw.stream()),
             "cuMemcpyDtoDAsync");
    record_and_sync(done.get(), raw.stream());
  }
  set_bytes(state);
}

void copy_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  const HaloResources& resources = fixture().halo_resources();
  CommandBufferPtr copy = record_copy(device, resources.source.get(),
                                      resources.target.get(), kTransferSize);
  run_halo_loop(state, device, copy.get());
}

}  // namespace halo::bench
