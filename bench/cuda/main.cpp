// halo-bench-cuda: the cuda plugin beside raw CUDA (the driver API) on the
// same device and primary context, in one process (DESIGN.md §8). Each
// family is registered raw first, then halo; run with
// --benchmark_enable_random_interleaving=true (see bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "cuda_benchmarks.hpp"
#include "fixture.hpp"
#include "settings.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {
namespace {

using BenchmarkFunction = void (*)(benchmark::State&);

// Registers FAMILY/VARIANT. Every figure involves the driver's threads and
// a blocking wait, so it is wall-clock time: measured by the library, or
// per iteration by the body (|manual_time|).
void add(const std::string& family, const char* variant,
         BenchmarkFunction body, benchmark::TimeUnit unit,
         bool manual_time = false) {
  benchmark::internal::Benchmark* benchmark =
      benchmark::RegisterBenchmark((family + "/" + variant).c_str(), body);
  if (manual_time) {
    benchmark->UseManualTime();
  } else {
    benchmark->UseRealTime();
  }
  benchmark->Unit(unit);
}

void register_benchmarks() {
  const benchmark::TimeUnit us = benchmark::kMicrosecond;
  const benchmark::TimeUnit ms = benchmark::kMillisecond;
  add("BM_CuSubmitWait", "native_cuda", submit_wait_native, us);
  add("BM_CuSubmitWait", "native_cuda_default_sync",
      submit_wait_native_default_sync, us);
  add("BM_CuSubmitWait", "halo", submit_wait_halo, us);
  add("BM_CuChain10k", "native_cuda", chain_native, ms);
  add("BM_CuChain10k", "halo", chain_halo, ms);
  add("BM_CuHostSignalWake", "native_cuda", host_signal_wake_native, us);
  add("BM_CuHostSignalWake", "native_cuda_prequeued",
      host_signal_wake_native_prequeued, us);
  add("BM_CuHostSignalWake", "halo", host_signal_wake_halo, us);
  add("BM_CuFill64MiB", "native_cuda", fill_native, ms);
  add("BM_CuFill64MiB", "halo", fill_halo, ms);
  add("BM_CuCopy64MiB", "native_cuda", copy_native, ms);
  add("BM_CuCopy64MiB", "halo", copy_halo, ms);
  add("BM_CuEmptyKernel", "native_cuda", empty_kernel_native, us);
  add("BM_CuEmptyKernel", "halo", empty_kernel_halo, us);
  add("BM_CuSubmitLatency", "native_cuda", submit_latency_native, us,
      /*manual_time=*/true);
  add("BM_CuSubmitLatency", "halo", submit_latency_halo, us,
      /*manual_time=*/true);
}

void add_context(Fixture& fixture) {
  const halo_device_info_t& info = fixture.halo().info();
  benchmark::AddCustomContext("halo_device", info.name);
  benchmark::AddCustomContext("halo_device_driver", info.driver_version);
  benchmark::AddCustomContext(
      "native_cuda_device",
      fixture.raw().description() +
          " (same CUdevice and primary context, own non-blocking stream)");
  // What the native_cuda_default_sync variant waits with; every other
  // wait, on both sides, is a blocking-sync event's.
  benchmark::AddCustomContext("context_scheduling", fixture.raw().scheduling());
  benchmark::AddCustomContext("pinning", pin_plan().label);
}

}  // namespace
}  // namespace halo::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  halo::bench::Settings settings;
  std::string error;
  if (!halo::bench::read_settings(&settings, &error)) {
    std::fprintf(stderr, "halo-bench-cuda: %s\n", error.c_str());
    return 1;
  }
  // The plan is made before any driver thread starts, from the affinity
  // the process was given.
  halo::bench::pin_plan();
  int result = 0;
  {
    halo::bench::Fixture fixture;
    if (fixture.open(settings, &error)) {
      halo::bench::set_fixture(&fixture);
      halo::bench::add_context(fixture);
      halo::bench::register_benchmarks();
      benchmark::RunSpecifiedBenchmarks();
      halo::bench::set_fixture(nullptr);
    } else {
      std::fprintf(stderr, "halo-bench-cuda: setup failed: %s\n",
                   error.c_str());
      result = 1;
    }
  }
  benchmark::Shutdown();
  return result;
}
