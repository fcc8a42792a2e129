// The benchmarks of halo-bench-vulkan, each a raw Vulkan baseline
// (native_vulkan) beside the halo figure doing the same work. main.cpp
// registers them native first, then halo. A *_native_retiring baseline is
// raw Vulkan that also learns when each submission ends, by a second
// timeline signal in the same batch and a thread waiting on it: the one
// cost halo's retention contract adds to every submission on Vulkan
// (bench/README.md). A *_native_retiring_polling baseline polls that
// timeline instead.
#ifndef HALO_BENCH_VULKAN_VULKAN_BENCHMARKS_HPP_
#define HALO_BENCH_VULKAN_VULKAN_BENCHMARKS_HPP_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "instruction_count.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {

// Submissions in one BM_VkChain10k iteration.
constexpr int kChainLength = 10000;
// Bytes of each BM_VkFill64MiB / BM_VkCopy64MiB buffer.
constexpr uint64_t kTransferBytes = uint64_t{64} << 20;

// sync_benchmarks.cpp: semaphores and submissions without work.
void chain_native(benchmark::State& state);
void chain_native_retiring(benchmark::State& state);
void chain_halo(benchmark::State& state);
void submit_wait_native(benchmark::State& state);
void submit_wait_native_retiring(benchmark::State& state);
void submit_wait_native_retiring_polling(benchmark::State& state);
void submit_wait_halo(benchmark::State& state);
void host_signal_wake_native(benchmark::State& state);
void host_signal_wake_native_on_signal(benchmark::State& state);
void host_signal_wake_native_on_signal_retiring_polling(
    benchmark::State& state);
void host_signal_wake_halo(benchmark::State& state);

// transfer_benchmarks.cpp: a recorded fill or copy of 64 MiB.
void fill_native(benchmark::State& state);
void fill_halo(benchmark::State& state);
void copy_native(benchmark::State& state);
void copy_halo(benchmark::State& state);

// dispatch_benchmarks.cpp: one workgroup of the empty kernel.
void empty_dispatch_native(benchmark::State& state);
void empty_dispatch_native_retiring(benchmark::State& state);
void empty_dispatch_native_retiring_polling(benchmark::State& state);
void empty_dispatch_halo(benchmark::State& state);

// latency_benchmarks.cpp: BM_VkSubmitWait's round trip timed one
// iteration at a time, with its percentiles (and the submission call's) as
// counters (latency_samples.hpp). Registered with manual time.
void submit_latency_native(benchmark::State& state);
void submit_latency_halo(benchmark::State& state);

// The empty kernel's SPIR-V, read by main before any benchmark runs.
void set_empty_kernel(std::vector<uint32_t> spirv);
const std::vector<uint32_t>& empty_kernel();

// Runs |step| once untimed, then once per iteration. The untimed round
// pays each run's first-use costs (pages of fresh buffers, the driver's
// first submission on a fresh device, pipeline caches) on both sides alike,
// so that a run of few iterations (a 64 MiB fill, a chain) is not one cold
// iteration. |submissions_per_step| labels the timed iterations for
// instruction counts (instruction_count.hpp).
template <typename Step>
void run_timed(benchmark::State& state, Step step,
               int64_t submissions_per_step = 1) {
  step();
  InstructionCount count(state, submissions_per_step);
  for (auto _ : state) step();
}

// Pins the timed thread for one benchmark run, on the same core for both
// sides (pin_plan().main_cpu), and restores its affinity afterwards. Make
// it after the run's devices and its RawRetirer: a thread inherits the
// affinity of the thread that creates it, and neither a driver's threads
// nor the retirer's (as halo's queue threads, made with its device) may
// share the timed thread's core.
class PinTimedThread {
 public:
  PinTimedThread() { pin_current_thread(pin_plan().main_cpu); }

 private:
  ScopedAffinity restore_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_VULKAN_BENCHMARKS_HPP_
