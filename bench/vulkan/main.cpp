// halo-bench-vulkan: the vulkan plugin beside raw Vulkan on the same
// physical device, in one process (DESIGN.md §8). Every benchmark is
// registered raw first (FAMILY/native_vulkan), then halo (FAMILY/halo); run
// with --benchmark_enable_random_interleaving=true (see bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "halo_vulkan.hpp"
#include "raw_vulkan.hpp"
#include "settings.hpp"
#include "thread_pinning.hpp"
#include "vulkan_benchmarks.hpp"

namespace halo::bench {
namespace {

using BenchmarkFunction = void (*)(benchmark::State&);

// Which side a variant measures.
enum class Side { kRaw, kHalo };

// Registers one variant. Every figure is wall-clock time: the timed thread
// sleeps in host waits while the device (and, for halo, the plugin's
// notification thread) works. It is measured by the library, or per
// iteration by the body (|manual_time|). A raw run makes its own VkDevice
// (RawDeviceScope), as a halo run makes its halo device: each side's runs
// have only their own device in the process.
void add(const std::string& name, Side side, BenchmarkFunction body,
         benchmark::TimeUnit unit, bool manual_time) {
  benchmark::internal::Benchmark* benchmark = nullptr;
  if (side == Side::kHalo) {
    benchmark = benchmark::RegisterBenchmark(name.c_str(), body);
  } else {
    benchmark = benchmark::RegisterBenchmark(name.c_str(),
                                             [body](benchmark::State& state) {
                                               RawDeviceScope device;
                                               body(state);
                                             });
  }
  if (manual_time) {
    benchmark->UseManualTime();
  } else {
    benchmark->UseRealTime();
  }
  benchmark->Unit(unit);
}

// Registers FAMILY/native_vulkan, then FAMILY/native_vulkan_retiring and
// FAMILY/native_vulkan_retiring_polling when given, then FAMILY/halo.
void add_pair(const char* family, BenchmarkFunction native,
              BenchmarkFunction halo, benchmark::TimeUnit unit,
              bool manual_time = false,
              BenchmarkFunction native_retiring = nullptr,
              BenchmarkFunction native_retiring_polling = nullptr) {
  const std::string name(family);
  add(name + "/native_vulkan", Side::kRaw, native, unit, manual_time);
  if (native_retiring != nullptr) {
    add(name + "/native_vulkan_retiring", Side::kRaw, native_retiring, unit,
        manual_time);
  }
  if (native_retiring_polling != nullptr) {
    add(name + "/native_vulkan_retiring_polling", Side::kRaw,
        native_retiring_polling, unit, manual_time);
  }
  add(name + "/halo", Side::kHalo, halo, unit, manual_time);
}

void register_benchmarks() {
  // Raw Vulkan twice where the submission's own cost shows: as is, and
  // also signalling the completion timeline that halo's retention needs;
  // for the round trips also with that timeline polled instead of waited
  // on, the other way a thread could learn of each end.
  add_pair("BM_VkChain10k", chain_native, chain_halo, benchmark::kMillisecond,
           /*manual_time=*/false, chain_native_retiring);
  add_pair("BM_VkSubmitWait", submit_wait_native, submit_wait_halo,
           benchmark::kMicrosecond, /*manual_time=*/false,
           submit_wait_native_retiring, submit_wait_native_retiring_polling);
  // Raw Vulkan three times: with the batch queued before the host signal,
  // and queued on it, as halo must, also retiring each submission by
  // polling, as halo does on a GPU (sync_benchmarks.cpp).
  add("BM_VkHostSignalWake/native_vulkan", Side::kRaw, host_signal_wake_native,
      benchmark::kMicrosecond, /*manual_time=*/false);
  add("BM_VkHostSignalWake/native_vulkan_on_signal", Side::kRaw,
      host_signal_wake_native_on_signal, benchmark::kMicrosecond,
      /*manual_time=*/false);
  add("BM_VkHostSignalWake/native_vulkan_on_signal_retiring_polling",
      Side::kRaw, host_signal_wake_native_on_signal_retiring_polling,
      benchmark::kMicrosecond, /*manual_time=*/false);
  add("BM_VkHostSignalWake/halo", Side::kHalo, host_signal_wake_halo,
      benchmark::kMicrosecond, /*manual_time=*/false);
  add_pair("BM_VkFill64MiB", fill_native, fill_halo, benchmark::kMillisecond);
  add_pair("BM_VkCopy64MiB", copy_native, copy_halo, benchmark::kMillisecond);
  add_pair("BM_VkEmptyDispatch", empty_dispatch_native, empty_dispatch_halo,
           benchmark::kMicrosecond, /*manual_time=*/false,
           empty_dispatch_native_retiring,
           empty_dispatch_native_retiring_polling);
  add_pair("BM_VkSubmitLatency", submit_latency_native, submit_latency_halo,
           benchmark::kMicrosecond, /*manual_time=*/true);
}

// Reads the kernel and opens both sides: the halo driver, then the raw
// instance on the physical device the halo driver reports. Each proves it
// can make its device; the runs make their own.
bool open_everything(const Settings& settings, std::string* error) {
  std::vector<uint32_t> spirv;
  if (!read_spirv(settings.kernel, &spirv, error)) return false;
  set_empty_kernel(std::move(spirv));
  if (!open_halo_driver(settings, error)) return false;
  return open_raw_side(halo_device_info().uuid,
                       settings.raw_external_extensions, error);
}

void close_everything() {
  close_raw_side();
  close_halo_driver();
  if (raw_validation_messages() != 0) {
    std::fprintf(stderr,
                 "halo-bench-vulkan: the raw side's validation layer "
                 "reported %llu message(s)\n",
                 static_cast<unsigned long long>(raw_validation_messages()));
  }
}

void add_context(const Settings& settings) {
  const halo_device_info_t& info = halo_device_info();
  benchmark::AddCustomContext("halo_device", info.name);
  benchmark::AddCustomContext("halo_device_driver", info.driver_version);
  benchmark::AddCustomContext("raw_device", raw_device().name +
                                                " (same UUID, own VkDevice)");
  std::string extensions;
  for (const char* name : raw_device().extensions) {
    extensions += extensions.empty() ? name : std::string(" ") + name;
  }
  benchmark::AddCustomContext("raw_device_extensions",
                              extensions.empty() ? "none" : extensions);
  benchmark::AddCustomContext("halo_manifest", settings.manifest);
  benchmark::AddCustomContext("kernel", settings.kernel);
  const int cpu = pin_plan().main_cpu;
  benchmark::AddCustomContext(
      "pinning", cpu < 0 ? std::string("unpinned")
                         : "timed thread on cpu " + std::to_string(cpu));
}

}  // namespace
}  // namespace halo::bench

int main(int argc, char** argv) {
  using namespace halo::bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Settings settings;
  std::string error;
  if (!load_settings(&settings, &error) ||
      !open_everything(settings, &error)) {
    std::fprintf(stderr, "halo-bench-vulkan: %s\n", error.c_str());
    close_everything();
    return 1;
  }
  add_context(settings);
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  close_everything();
  return 0;
}
