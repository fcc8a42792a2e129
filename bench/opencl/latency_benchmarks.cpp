// The latency of single submissions, timed one iteration at a time so that
// its tail shows (bench/latency_samples.hpp): halo-bench-cuda's
// BM_CuSubmitLatency on OpenCL.
//
// The work is the 4-byte fill of one word (word_fill.hpp), BM_ClChain10k's
// link, rather than BM_ClEmptyKernel's dispatch. The cuda benchmark times
// the least a submission can give the device (an event record, nothing
// launched), so that the figure is the submit-to-wake path itself. On
// OpenCL the least that still leaves the raw side a command to wait on is
// the smallest command the device runs; a kernel launch would add the
// implementation's dispatch path (argument setup, work-group scheduling),
// which BM_ClEmptyKernel measures already.
//
// The submission call is halo_device_queue_execute beside the
// clEnqueueFillBuffer it comes down to; neither flushes (the plugin's
// worker does, and clWaitForEvents does on the raw side), so the issue
// percentiles compare enqueue with enqueue. The instruction-count marker
// (instruction_count.hpp) covers the timed loop only: sorting the samples
// for the percentiles afterwards is no submission's cost.
#include <cstdint>

#include "fixture.hpp"
#include "latency_samples.hpp"
#include "opencl_benchmarks.hpp"
#include "word_fill.hpp"

namespace halo::bench {

void submit_latency_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  cl_command_queue queue = fixture().raw().queue();
  cl_mem word = fixture().raw_resources().word.get();
  LatencySamples samples(state);
  cl_event done = nullptr;
  auto issue = [&] { done = enqueue_word_fill(queue, word, 0, nullptr); };
  auto complete = [&] { wait_and_release(done); };
  {
    InstructionCount count(state, 1);
    samples.time_each(state, issue, complete);
  }
  samples.report(state);
}

void submit_latency_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill =
      record_word_fill(device, fixture().halo_resources().word.get());
  SemaphorePtr done = make_semaphore(device, 0);
  LatencySamples samples(state);
  uint64_t value = 0;
  auto issue = [&] {
    submit(device, Timepoint{}, {done.get(), ++value}, fill.get());
  };
  auto complete = [&] { wait({done.get(), value}); };
  {
    InstructionCount count(state, 1);
    samples.time_each(state, issue, complete);
  }
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
  samples.report(state);
}

}  // namespace halo::bench
