// The benchmark bodies of halo-bench-opencl; main.cpp registers them in
// native/halo pairs. Every body works on fixture() and aborts on any
// unexpected status or cl_int.
#ifndef HALO_BENCH_OPENCL_OPENCL_BENCHMARKS_HPP_
#define HALO_BENCH_OPENCL_OPENCL_BENCHMARKS_HPP_

#include <benchmark/benchmark.h>

#include "instruction_count.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {

// Pins the timed thread to the same core for both sides (DESIGN.md §8) and
// gives the thread its affinity back afterwards.
class PinnedTimedThread {
 public:
  PinnedTimedThread() { pin_current_thread(pin_plan().main_cpu); }

 private:
  ScopedAffinity restore_;
};

// A host release of a gate, the 4-byte fill that waited on it, and the
// host seeing the fill done.
void user_event_release_native(benchmark::State& state);
void user_event_release_halo(benchmark::State& state);

// kChainLength 4-byte fills, each waiting on the one before; the host
// waits for the last. The retiring and polling baselines also have each
// link's end seen as it comes, as halo must (raw_retirer.hpp,
// raw_poller.hpp); the holding one only keeps each event a while longer
// (raw_holder.hpp).
inline constexpr int kChainLength = 10000;
void chain_native(benchmark::State& state);
void chain_native_retiring(benchmark::State& state);
void chain_native_polling(benchmark::State& state);
void chain_native_holding(benchmark::State& state);
void chain_halo(benchmark::State& state);

// A fill of kTransferSize bytes, and a copy between two such buffers,
// submitted and waited for.
void fill_native(benchmark::State& state);
void fill_halo(benchmark::State& state);
void copy_native(benchmark::State& state);
void copy_halo(benchmark::State& state);

// One workgroup of the empty kernel, submitted and waited for.
void empty_kernel_native(benchmark::State& state);
void empty_kernel_halo(benchmark::State& state);

// The submit-and-wait round trip of a 4-byte fill, timed one iteration at a
// time, with its percentiles (and the submission call's) as counters
// (latency_samples.hpp). Registered with manual time.
void submit_latency_native(benchmark::State& state);
void submit_latency_halo(benchmark::State& state);

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_OPENCL_BENCHMARKS_HPP_
