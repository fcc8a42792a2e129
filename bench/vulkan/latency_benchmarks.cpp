// The latency of single submissions: the submit-and-wait round trip of
// BM_VkSubmitWait (one submission without work signalling a timeline
// semaphore, then a blocking host wait), timed one iteration at a time so
// that its tail shows (bench/latency_samples.hpp). The submission call is
// halo_device_queue_execute beside the vkQueueSubmit it comes down to.
#include <cstdint>

#include "halo_objects.hpp"
#include "latency_samples.hpp"
#include "raw_objects.hpp"
#include "vulkan_benchmarks.hpp"

namespace halo::bench {
namespace {

// run_timed() for timed round trips: one untimed round first, for the
// first-use costs of a fresh device and semaphore, then every iteration
// timed on its own. The percentiles are reported outside the counted
// stretch, so sorting the samples adds nothing to the instruction counts.
template <typename Issue, typename Complete>
void run_latency(benchmark::State& state, Issue issue, Complete complete) {
  issue();
  complete();
  LatencySamples samples(state);
  {
    InstructionCount count(state, 1);
    samples.time_each(state, issue, complete);
  }
  samples.report(state);
}

}  // namespace

void submit_latency_native(benchmark::State& state) {
  PinTimedThread pin;
  const RawDevice& raw = raw_device();
  RawSemaphore done;
  uint64_t value = 0;
  auto issue = [&] {
    raw_submit(raw, VK_NULL_HANDLE, 0, done.get(), ++value, VK_NULL_HANDLE);
  };
  auto complete = [&] { raw_wait(raw, done.get(), value); };
  run_latency(state, issue, complete);
  raw_finish_run(raw);
}

void submit_latency_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloSemaphore done(device.get());
  uint64_t value = 0;
  auto issue = [&] {
    halo_submit(device.get(), nullptr, 0, done.get(), ++value, nullptr);
  };
  auto complete = [&] { halo_wait(done.get(), value); };
  run_latency(state, issue, complete);
}

}  // namespace halo::bench
