// halo-bench-work: real work on the cpu plugin — fill, copy, dispatch —
// beside the native code doing the same, in one process (DESIGN.md §8).
// Registered native first, then halo; run with
// --benchmark_enable_random_interleaving=true (see bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "bench_device.hpp"
#include "thread_pinning.hpp"
#include "work_benchmarks.hpp"

namespace halo::bench {
namespace {

using BenchmarkFunction = void (*)(benchmark::State&);

// Every work benchmark involves a second thread (the plugin's), so the wall
// clock is the figure.
benchmark::internal::Benchmark* add(const char* name, BenchmarkFunction function,
                                    int64_t bytes = 0) {
  auto* benchmark = benchmark::RegisterBenchmark(name, function)->UseRealTime();
  if (bytes != 0) benchmark->Arg(bytes);
  return benchmark;
}

void register_benchmarks() {
  constexpr int64_t k4KiB = 4 << 10;
  constexpr int64_t k64MiB = int64_t{64} << 20;
  add("BM_Fill4KiB/native_memset", fill_native_memset, k4KiB)
      ->Unit(benchmark::kMicrosecond);
  add("BM_Fill4KiB/halo", fill_halo, k4KiB)->Unit(benchmark::kMicrosecond);
  add("BM_Fill64MiB/native_memset", fill_native_memset, k64MiB)
      ->Unit(benchmark::kMillisecond);
  add("BM_Fill64MiB/halo", fill_halo, k64MiB)->Unit(benchmark::kMillisecond);
  add("BM_Copy4KiB/native_memcpy", copy_native_memcpy, k4KiB)
      ->Unit(benchmark::kMicrosecond);
  add("BM_Copy4KiB/halo", copy_halo, k4KiB)->Unit(benchmark::kMicrosecond);
  add("BM_Copy64MiB/native_memcpy", copy_native_memcpy, k64MiB)
      ->Unit(benchmark::kMillisecond);
  add("BM_Copy64MiB/halo", copy_halo, k64MiB)->Unit(benchmark::kMillisecond);
  add("BM_EmptyDispatch/native_futex_handoff",
      empty_dispatch_native_futex_handoff)
      ->Unit(benchmark::kMicrosecond);
  add("BM_EmptyDispatch/halo", empty_dispatch_halo)
      ->Unit(benchmark::kMicrosecond);
  add("BM_Saxpy16M/native_threads", saxpy_native_threads)
      ->Unit(benchmark::kMillisecond);
  add("BM_Saxpy16M/halo", saxpy_chunked_halo)->Unit(benchmark::kMillisecond);
  add("BM_Saxpy16MPortable/native_threads", saxpy_native_threads)
      ->Unit(benchmark::kMillisecond);
  add("BM_Saxpy16MPortable/halo", saxpy_portable_halo)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace halo::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const halo::bench::PinPlan& plan = halo::bench::pin_plan();
  std::string error;
  if (!halo::bench::open_cpu_device(&error)) {
    std::fprintf(stderr, "halo-bench-work: cannot open the cpu device: %s\n",
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
