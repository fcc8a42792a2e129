// A host signal that releases device work, and the host seeing that work
// done: halo's wait on a host-signalled value beside the two ways raw CUDA
// can do the same.
//
// The work is one 4-byte fill of a word on every side. halo submits it
// waiting on a value nobody has signalled yet; the plugin keeps it off the
// stream until the host signal reaches the value (the timepoint's callback
// then issues it, on the signalling thread), because DESIGN.md §5 promises
// that work behind a wait that fails never runs. Two raw baselines:
//   * native_cuda keeps that promise the only way CUDA can: the work is
//     issued when the host decides to release it, and no earlier. This is
//     the fair baseline.
//   * native_cuda_prequeued issues the work first, behind a
//     cuStreamWaitValue64 on a host-mapped word, then releases it by
//     writing the word: the GPU is already waiting when the host signals,
//     as raw Vulkan's wait-before-signal is in halo-bench-vulkan. Work
//     queued that way runs as soon as the word reaches the value, whatever
//     happened meanwhile, so it cannot keep halo's promise; the difference
//     between the two raw figures is the price of the promise.
#include <atomic>

#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

namespace halo::bench {
namespace {

void issue_word_fill(CUdeviceptr word, CUstream stream) {
  check_cu(cuMemsetD32Async(word, kPattern, 1, stream), "cuMemsetD32Async");
}

}  // namespace

void host_signal_wake_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const CUdeviceptr word = fixture().raw_resources().word.get();
  CuEvent done = make_event(kBlockingSyncEvent);
  for (auto _ : state) {
    // The host's signal: from here on the fill may run, so it is issued
    // now, with the event the host then waits on.
    issue_word_fill(word, raw.stream());
    record_and_sync(done.get(), raw.stream());
  }
}

void host_signal_wake_native_prequeued(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  const RawResources& resources = fixture().raw_resources();
  if (!resources.wait_value_error.empty()) {
    state.SkipWithError(resources.wait_value_error.c_str());
    return;
  }
  CuEvent done = make_event(kBlockingSyncEvent);
  // The device reads the word over the bus while the host writes it.
  std::atomic_ref<uint64_t> gate(*resources.gate.host());
  // Each run counts from 1 again. The run before ended with its last wait
  // satisfied and the stream idle, so nothing reads the word now.
  gate.store(0, std::memory_order_relaxed);
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    check_cu(cuStreamWaitValue64(raw.stream(), resources.gate.device(), value,
                                 CU_STREAM_WAIT_VALUE_GEQ),
             "cuStreamWaitValue64");
    issue_word_fill(resources.word.get(), raw.stream());
    check_cu(cuEventRecord(done.get(), raw.stream()), "cuEventRecord");
    gate.store(value, std::memory_order_release);  // The host's signal.
    check_cu(cuEventSynchronize(done.get()), "cuEventSynchronize");
  }
}

void host_signal_wake_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill = record_fill(
      device, fixture().halo_resources().word.get(), kWordSize, kPattern);
  SemaphorePtr release = make_semaphore(device, 0);
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    // Submitted before the host signal, on a value nobody has signalled
    // yet: the plugin holds the fill back until the signal.
    submit(device, {release.get(), value}, {done.get(), value}, fill.get());
    check(halo_semaphore_signal(release.get(), value), "halo_semaphore_signal");
    wait({done.get(), value});
  }
  wait_idle(device);
}

}  // namespace halo::bench
