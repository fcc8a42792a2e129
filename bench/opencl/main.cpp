// halo-bench-opencl: the opencl plugin beside raw OpenCL on the same
// device, in one process (DESIGN.md §8). Each family is registered native
// first, then halo; run with --benchmark_enable_random_interleaving=true
// (see bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "fixture.hpp"
#include "opencl_benchmarks.hpp"
#include "settings.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {
namespace {

using BenchmarkFunction = void (*)(benchmark::State&);

// Registers one variant. Every figure involves the implementation's
// threads and a blocking wait, so it is wall-clock time: measured by the
// library, or per iteration by the body (|manual_time|).
void add(const std::string& name, BenchmarkFunction body,
         benchmark::TimeUnit unit, bool manual_time) {
  benchmark::internal::Benchmark* benchmark =
      benchmark::RegisterBenchmark(name.c_str(), body);
  if (manual_time) {
    benchmark->UseManualTime();
  } else {
    benchmark->UseRealTime();
  }
  benchmark->Unit(unit);
}

// Registers FAMILY/native_opencl then FAMILY/halo.
void add_pair(const std::string& family, BenchmarkFunction native,
              BenchmarkFunction halo, benchmark::TimeUnit unit,
              bool manual_time = false) {
  add(family + "/native_opencl", native, unit, manual_time);
  add(family + "/halo", halo, unit, manual_time);
}

void register_benchmarks() {
  add_pair("BM_ClUserEventRelease", user_event_release_native,
           user_event_release_halo, benchmark::kMicrosecond);
  // Raw OpenCL four times: as is; learning of each link's end as it comes,
  // as halo's retention needs, by a thread that waits and releases
  // (raw_retirer.hpp) and by one that polls as halo's queue does
  // (raw_poller.hpp); and only holding each event a few links longer
  // (raw_holder.hpp).
  add("BM_ClChain10k/native_opencl", chain_native, benchmark::kMillisecond,
      /*manual_time=*/false);
  add("BM_ClChain10k/native_opencl_retiring", chain_native_retiring,
      benchmark::kMillisecond, /*manual_time=*/false);
  add("BM_ClChain10k/native_opencl_polling", chain_native_polling,
      benchmark::kMillisecond, /*manual_time=*/false);
  add("BM_ClChain10k/native_opencl_holding", chain_native_holding,
      benchmark::kMillisecond, /*manual_time=*/false);
  add("BM_ClChain10k/halo", chain_halo, benchmark::kMillisecond,
      /*manual_time=*/false);
  add_pair("BM_ClFill64MiB", fill_native, fill_halo, benchmark::kMillisecond);
  add_pair("BM_ClCopy64MiB", copy_native, copy_halo, benchmark::kMillisecond);
  add_pair("BM_ClEmptyKernel", empty_kernel_native, empty_kernel_halo,
           benchmark::kMicrosecond);
  add_pair("BM_ClSubmitLatency", submit_latency_native, submit_latency_halo,
           benchmark::kMicrosecond, /*manual_time=*/true);
}

void add_context(Fixture& fixture) {
  const halo_device_info_t& info = fixture.halo().info();
  benchmark::AddCustomContext("halo_device", info.name);
  benchmark::AddCustomContext("halo_device_vendor", info.vendor);
  benchmark::AddCustomContext("halo_device_driver", info.driver_version);
  // The raw side runs on the same cl_device_id in a context of its own.
  benchmark::AddCustomContext("native_opencl_device",
                              fixture.raw().description() +
                                  " (same device, separate context)");
  benchmark::AddCustomContext(
      "queues", fixture.raw().out_of_order() ? "out-of-order" : "in-order");
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
    std::fprintf(stderr, "halo-bench-opencl: %s\n", error.c_str());
    return 1;
  }
  // The plan is made before any device thread starts, from the affinity
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
      std::fprintf(stderr, "halo-bench-opencl: setup failed: %s\n",
                   error.c_str());
      result = 1;
    }
  }
  benchmark::Shutdown();
  return result;
}
