// The latency of single submissions: the submit-and-wait round trip of
// BM_CuSubmitWait, timed one iteration at a time so that its tail shows
// (bench/latency_samples.hpp). The submission call is
// halo_device_queue_execute beside the cuEventRecord it comes down to.
#include <cstdint>

#include "cuda_benchmarks.hpp"
#include "fixture.hpp"
#include "latency_samples.hpp"

namespace halo::bench {

void submit_latency_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  CuEvent done = make_event(kBlockingSyncEvent);
  LatencySamples samples(state);
  auto issue = [&] {
    check_cu(cuEventRecord(done.get(), raw.stream()), "cuEventRecord");
  };
  auto complete = [&] {
    check_cu(cuEventSynchronize(done.get()), "cuEventSynchronize");
  };
  samples.time_each(state, issue, complete);
  samples.report(state);
}

void submit_latency_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  SemaphorePtr done = make_semaphore(device, 0);
  LatencySamples samples(state);
  uint64_t value = 0;
  auto issue = [&] {
    submit(device, Timepoint{}, {done.get(), ++value}, nullptr);
  };
  auto complete = [&] { wait({done.get(), value}); };
  samples.time_each(state, issue, complete);
  wait_idle(device);
  samples.report(state);
}

}  // namespace halo::bench
