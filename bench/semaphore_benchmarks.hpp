// The semaphore benchmark bodies; semaphore_benchmark.cpp registers them in
// native/halo alternation.
#ifndef HALO_BENCH_SEMAPHORE_BENCHMARKS_HPP_
#define HALO_BENCH_SEMAPHORE_BENCHMARKS_HPP_

#include <benchmark/benchmark.h>

namespace halo::bench {

// Host-to-host wake latency: two pinned threads bounce a token through two
// blocking "semaphores"; one iteration is one round trip.
void ping_pong_native_futex(benchmark::State& state);
void ping_pong_condition_variable(benchmark::State& state);
void ping_pong_halo(benchmark::State& state);
// The same across a shared page, as between two processes: each thread
// signals and waits through its own mapping (raw: non-private futexes) or
// its own side of a host timeline (halo: exported, then imported again).
void ping_pong_native_shared_futex(benchmark::State& state);
void ping_pong_halo_host_timeline(benchmark::State& state);

// Reading the payload.
void query_native_atomic(benchmark::State& state);
// The same load behind an opaque function-pointer call (decomposition).
void query_native_atomic_indirect_call(benchmark::State& state);
void query_halo(benchmark::State& state);

// A poll (infinite-past deadline) on a value already reached.
void poll_wait_reached_native_atomic(benchmark::State& state);
void poll_wait_reached_halo(benchmark::State& state);

// A poll on a value not reached yet (halo: DEADLINE_EXCEEDED).
void poll_wait_not_reached_native_atomic(benchmark::State& state);
void poll_wait_not_reached_halo(benchmark::State& state);

// Advancing the payload with nobody waiting.
void signal_native_atomic_store(benchmark::State& state);
void signal_native_atomic_fetch_add(benchmark::State& state);
void signal_native_atomic_cas(benchmark::State& state);
void signal_halo(benchmark::State& state);

}  // namespace halo::bench

#endif  // HALO_BENCH_SEMAPHORE_BENCHMARKS_HPP_
