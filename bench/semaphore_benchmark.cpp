// halo-bench-semaphore: halo timeline semaphores of the cpu plugin beside the
// native primitives doing the same work, in one process (DESIGN.md §8).
//
// Each family registers its native baseline(s) and its halo variant next to
// one another, native first, so a plain run already alternates native, halo,
// native, halo …; run with --benchmark_repetitions=N
// --benchmark_enable_random_interleaving=true so that every repetition of
// every benchmark runs in a shuffled order and drift on a shared machine hits
// both sides alike. bench/compare.py turns the JSON output into the table of
// medians, spreads and ratios kept in bench/README.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench_device.hpp"
#include "semaphore_benchmarks.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {
namespace {

using BenchmarkFunction = void (*)(benchmark::State&);

benchmark::internal::Benchmark* add(const char* name,
                                    BenchmarkFunction function) {
  return benchmark::RegisterBenchmark(name, function)
      ->Unit(benchmark::kNanosecond);
}

void register_benchmarks() {
  // Two threads take part and the timed thread sleeps most of the time, so
  // the wall clock is the figure.
  add("BM_PingPong/native_futex", ping_pong_native_futex)->UseRealTime();
  add("BM_PingPong/halo", ping_pong_halo)->UseRealTime();
  add("BM_PingPong/condition_variable", ping_pong_condition_variable)
      ->UseRealTime();
  add("BM_PingPongShared/native_shared_futex", ping_pong_native_shared_futex)
      ->UseRealTime();
  add("BM_PingPongShared/halo_host_timeline", ping_pong_halo_host_timeline)
      ->UseRealTime();

  add("BM_Query/native_atomic", query_native_atomic);
  add("BM_Query/halo", query_halo);
  add("BM_Query/native_atomic_indirect_call",
      query_native_atomic_indirect_call);

  add("BM_PollWaitReached/native_atomic", poll_wait_reached_native_atomic);
  add("BM_PollWaitReached/halo", poll_wait_reached_halo);

  add("BM_PollWaitNotReached/native_atomic",
      poll_wait_not_reached_native_atomic);
  add("BM_PollWaitNotReached/halo", poll_wait_not_reached_halo);

  add("BM_Signal/native_atomic_store", signal_native_atomic_store);
  add("BM_Signal/halo", signal_halo);
  add("BM_Signal/native_atomic_fetch_add", signal_native_atomic_fetch_add);
  add("BM_Signal/native_atomic_cas", signal_native_atomic_cas);
}

}  // namespace
}  // namespace halo::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Computed before any benchmark pins the main thread.
  const halo::bench::PinPlan& plan = halo::bench::pin_plan();
  std::string error;
  if (!halo::bench::open_cpu_device(&error)) {
    std::fprintf(stderr, "halo-bench-semaphore: cannot open the cpu device: %s\n",
                 error.c_str());
    halo::bench::close_cpu_device();
    return 1;
  }
  benchmark::AddCustomContext("halo_device", halo::bench::cpu_device_name());
  benchmark::AddCustomContext("pinning", plan.label);
  halo::bench::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  halo::bench::close_cpu_device();
  return 0;
}
