// One submission without work and the host seeing it done: the
// submit-to-wake round trip.
//
// A halo submission without command buffers is a barrier; the plugin still
// records its completion event on the stream, and that event record is all
// the device does. The raw side records the same: cuEventRecord and
// cuEventSynchronize on its own stream of the same context.
#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

namespace halo::bench {
namespace {

// Records |flags|' event on the raw stream and waits for it, per
// iteration.
void run_raw_round_trips(benchmark::State& state, unsigned int flags) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  CuEvent done = make_event(flags);
  for (auto _ : state) record_and_sync(done.get(), raw.stream());
}

}  // namespace

void submit_wait_native(benchmark::State& state) {
  run_raw_round_trips(state, kBlockingSyncEvent);
}

// The context's own scheduling (see raw_objects.hpp): what a CUDA program
// that never asks for blocking sync gets, usually a spin on the timed
// thread. A reference for how much of the round trip is the sleeping wait;
// not the fair baseline, since halo's waits never spin.
void submit_wait_native_default_sync(benchmark::State& state) {
  run_raw_round_trips(state, kDefaultSyncEvent);
}

void submit_wait_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    submit(device, Timepoint{}, {done.get(), value}, nullptr);
    wait({done.get(), value});
  }
  wait_idle(device);
}

}  // namespace halo::bench
