// A chain of dependent submissions: each link runs only after the one
// before it, and the host waits once, for the last.
//
// As in halo-bench-opencl, each link is the smallest command the device
// runs, a 4-byte fill of a word, on both sides. The raw side gets the
// dependency the way CUDA programs do, from the order of one stream, and
// synchronises once at the end. The plugin chains the links the same way
// (a wait on a value that work already issued on its stream signals needs
// nothing more, plugins/cuda/submission.hpp), and per link also records a
// completion event that its worker synchronises on to signal the
// semaphore: that bookkeeping is what this figure shows.
#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

namespace halo::bench {
namespace {

void count_links(benchmark::State& state) {
  state.counters["links"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void chain_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const CUdeviceptr word = fixture().raw_resources().word.get();
  CuEvent done = make_event(kBlockingSyncEvent);
  for (auto _ : state) {
    for (int link = 0; link < kChainLength; ++link) {
      check_cu(cuMemsetD32Async(word, kPattern, 1, raw.stream()),
               "cuMemsetD32Async");
    }
    record_and_sync(done.get(), raw.stream());
  }
  count_links(state);
}

void chain_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill = record_fill(
      device, fixture().halo_resources().word.get(), kWordSize, kPattern);
  SemaphorePtr chain = make_semaphore(device, 0);
  uint64_t value = 0;
  for (auto _ : state) {
    // The first link's wait is already reached, as the raw side's first
    // fill waits on nothing; every later one is on the value the link
    // before signals.
    for (int link = 0; link < kChainLength; ++link) {
      submit(device, {chain.get(), value}, {chain.get(), value + 1},
             fill.get());
      ++value;
    }
    wait({chain.get(), value});
  }
  wait_idle(device);
  count_links(state);
}

}  // namespace halo::bench
