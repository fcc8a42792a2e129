// The work benchmark bodies; work_benchmark.cpp registers them in
// native/halo alternation.
#ifndef HALO_BENCH_WORK_BENCHMARKS_HPP_
#define HALO_BENCH_WORK_BENCHMARKS_HPP_

#include <benchmark/benchmark.h>

namespace halo::bench {

// Fill and copy of state.range(0) bytes: a recorded halo command buffer
// (submit, then the host waits for its signal) beside memset / memcpy.
void fill_native_memset(benchmark::State& state);
void fill_halo(benchmark::State& state);
void copy_native_memcpy(benchmark::State& state);
void copy_halo(benchmark::State& state);

// An empty kernel dispatched and seen done by the host, beside handing an
// empty function to an already-running thread through a futex and waiting
// for its answer.
void empty_dispatch_native_futex_handoff(benchmark::State& state);
void empty_dispatch_halo(benchmark::State& state);

// saxpy over 16 M floats: a plain C loop split over the same number of
// persistent threads beside one halo dispatch (chunked: one workgroup per
// share; portable: 64 elements per workgroup, as the CTS kernel).
void saxpy_native_threads(benchmark::State& state);
void saxpy_chunked_halo(benchmark::State& state);
void saxpy_portable_halo(benchmark::State& state);

}  // namespace halo::bench

#endif  // HALO_BENCH_WORK_BENCHMARKS_HPP_
