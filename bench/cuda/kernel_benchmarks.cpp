// The empty kernel's round trip: one workgroup of a kernel that does
// nothing, submitted and waited for, so the figure is the launch path
// alone.
//
// Both sides load the same PTX (the CTS's empty kernel) into the same
// context, each its own module, before any benchmark runs, and launch it
// once there so that the driver's lazy loading is paid outside the timed
// loops. The plugin replays a dispatch as one cuLaunchKernel of the
// workgroup count as the grid and the entry point's declared block; the
// raw side launches exactly that, then records its blocking-sync event.
#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

namespace halo::bench {

void empty_kernel_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const RawResources& resources = fixture().raw_resources();
  if (!resources.empty_error.empty()) {
    state.SkipWithError(resources.empty_error.c_str());
    return;
  }
  const uint32_t* block = resources.empty_block;
  CuEvent done = make_event(kBlockingSyncEvent);
  for (auto _ : state) {
    check_cu(cuLaunchKernel(resources.empty.function, 1, 1, 1, block[0],
                            block[1], block[2], 0, raw.stream(), nullptr,
                            nullptr),
             "cuLaunchKernel");
    record_and_sync(done.get(), raw.stream());
  }
}

void empty_kernel_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  const HaloResources& resources = fixture().halo_resources();
  if (!resources.empty_error.empty()) {
    state.SkipWithError(resources.empty_error.c_str());
    return;
  }
  CommandBufferPtr dispatch = record_one_workgroup(
      device, resources.empty.get(), resources.empty_entry);
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    submit(device, Timepoint{}, {done.get(), value}, dispatch.get());
    wait({done.get(), value});
  }
  wait_idle(device);
}

}  // namespace halo::bench
