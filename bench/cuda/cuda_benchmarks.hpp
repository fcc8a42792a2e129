// The benchmark bodies of halo-bench-cuda; main.cpp registers each family
// raw first (native_cuda and its reference variants), then halo. Every
// body works on fixture() and aborts on any unexpected status or CUresult.
//
// How each side's host waits: halo's timed thread blocks in
// halo_semaphore_wait (a futex on the semaphore's host value), which the
// plugin's completion worker sets after its cuEventSynchronize on the
// submission's CU_EVENT_BLOCKING_SYNC event returns. The native_cuda
// variants block in cuEventSynchronize on a CU_EVENT_BLOCKING_SYNC event of
// their own (raw_objects.hpp): both sides sleep until the device is done.
#ifndef HALO_BENCH_CUDA_CUDA_BENCHMARKS_HPP_
#define HALO_BENCH_CUDA_CUDA_BENCHMARKS_HPP_

#include <benchmark/benchmark.h>

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

// round_trip_benchmarks.cpp: one submission without work, signalling the
// host. native_cuda_default_sync waits with the context's scheduling, for
// reference.
void submit_wait_native(benchmark::State& state);
void submit_wait_native_default_sync(benchmark::State& state);
void submit_wait_halo(benchmark::State& state);

// chain_benchmarks.cpp: kChainLength 4-byte fills, each after the one
// before; the host waits for the last.
inline constexpr int kChainLength = 10000;
void chain_native(benchmark::State& state);
void chain_halo(benchmark::State& state);

// host_signal_benchmarks.cpp: a host signal releases a 4-byte fill, and
// the host sees it done. native_cuda issues the fill at the signal, as the
// plugin does; native_cuda_prequeued has it issued before, behind a stream
// wait on a host-written word.
void host_signal_wake_native(benchmark::State& state);
void host_signal_wake_native_prequeued(benchmark::State& state);
void host_signal_wake_halo(benchmark::State& state);

// transfer_benchmarks.cpp: a fill of kTransferSize bytes, and a copy
// between two such buffers, submitted and waited for.
void fill_native(benchmark::State& state);
void fill_halo(benchmark::State& state);
void copy_native(benchmark::State& state);
void copy_halo(benchmark::State& state);

// kernel_benchmarks.cpp: one workgroup of the empty kernel, submitted and
// waited for.
void empty_kernel_native(benchmark::State& state);
void empty_kernel_halo(benchmark::State& state);

// latency_benchmarks.cpp: the submit-and-wait round trip timed one
// iteration at a time, with its percentiles (and the submission call's) as
// counters. Registered with manual time.
void submit_latency_native(benchmark::State& state);
void submit_latency_halo(benchmark::State& state);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_CUDA_BENCHMARKS_HPP_
