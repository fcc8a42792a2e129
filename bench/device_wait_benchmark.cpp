// halo-bench-device-wait: a three-hop chain across two plugins, with the
// cross-plugin waits taken on the device beside the same chain handed over
// by the host (external.h, "Device-side waits across plugins").
//
// For each pair of devices where one (the exporter, e.g. vulkan) exports
// semaphores as a type the other (the waiter, e.g. cuda) imports for device
// waits, on one GPU, or as a host timeline (HOST_TIMELINE_FD: the cpu plugin
// and a plugin of the SDK's host semaphores, such as the CTS's reference
// peer, in one process), each iteration submits three hops and waits for the
// last:
//   exporter: signals A = i
//   waiter:   waits A = i, signals B = i
//   exporter: waits B = i, signals C = i;   the host waits for C = i
// (and each hop waits for its own semaphore's i - 1, which orders it).
//   device  A is EXPORTABLE: the waiter's wait on it is committed when
//           submitted, so libhalo makes it a wait on the waiter's device
//           (which must report HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS:
//           run with HALO_CUDA_AUTOMATIC_DEVICE_WAITS=1 for cuda,
//           HALO_CPU_AUTOMATIC_DEVICE_WAITS=1 for cpu).
//   host    A is a plain semaphore: a timepoint on it hands the waiter's
//           work over from the host, as between plugins before ABI 1.5.
// The B → C hop goes through the host in both (the waiter's semaphores do
// not export), so the difference is one host hand-off per iteration.
// chain_<N> submits N iterations before it waits, so the hops overlap.
// Where the build has Vulkan and CUDA, the vulkan → cuda pair's chain_1 also
// runs written by hand against both APIs (device_wait_native.cpp).
#include <benchmark/benchmark.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "device_facts.hpp"
#include "halo/halo.h"
#ifdef HALO_BENCH_DEVICE_WAIT_NATIVE
#include "device_wait_native.hpp"
#endif

namespace {

using halo::bench::check_or_die;

halo_semaphore_t* make_semaphore(halo_device_t* device, halo_semaphore_flags_t flags) {
  halo_semaphore_t* semaphore = nullptr;
  check_or_die(halo_semaphore_create(device, 0, flags, &semaphore), "semaphore create");
  return semaphore;
}

// A barrier submission of |device| that waits for |waits| (pairs with a
// NULL semaphore are left out) and signals (signal, value).
void hop(halo_device_t* device, std::initializer_list<std::pair<halo_semaphore_t*, uint64_t>> waits,
         halo_semaphore_t* signal, uint64_t value) {
  halo_semaphore_t* wait_semaphores[2];
  uint64_t wait_values[2];
  size_t wait_count = 0;
  for (const auto& [semaphore, wait_value] : waits) {
    if (semaphore == nullptr || wait_value == 0) continue;
    wait_semaphores[wait_count] = semaphore;
    wait_values[wait_count] = wait_value;
    ++wait_count;
  }
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = wait_count;
  info.wait_semaphores = wait_semaphores;
  info.wait_values = wait_values;
  info.signal_count = 1;
  info.signal_semaphores = &signal;
  info.signal_values = &value;
  check_or_die(halo_device_queue_execute(device, &info), "queue execute");
}

// Whether libhalo may make |waiter| wait on |exporter|'s EXPORTABLE
// semaphores on its device: a type that one exports and the other imports
// for device waits, which must be a host timeline or name one GPU.
bool shares_device_waits(halo_device_t* exporter, halo_device_t* waiter) {
  const halo_external_handle_type_t types =
      halo::bench::capabilities_of(exporter).semaphore_export_types &
      halo::bench::capabilities_of(waiter).semaphore_wait_import_types;
  if ((types & HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD) != 0) return true;
  return types != 0 && halo::bench::same_gpu(exporter, waiter);
}

// A name for |device| in benchmark names: its native API's ("vulkan",
// "cuda"), or, where |other| has the same one (two plugins of host
// devices), its device name's.
std::string label_of(halo_device_t* device, halo_device_t* other) {
  std::string label = halo::bench::native_api_name(device);
  if (label != halo::bench::native_api_name(other)) return label;
  const halo_device_info_t info = halo::bench::info_of(device);
  label.assign(info.name, strnlen(info.name, sizeof(info.name)));
  for (char& c : label) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return label;
}

struct Pair {
  halo_device_t* exporter;
  halo_device_t* waiter;
};

// |links| iterations of the three hops per benchmark iteration; A is
// exportable when |device_side|.
void chain(benchmark::State& state, Pair pair, bool device_side, int links) {
  halo_semaphore_t* a = make_semaphore(
      pair.exporter, device_side ? HALO_SEMAPHORE_FLAG_EXPORTABLE : HALO_SEMAPHORE_FLAG_NONE);
  halo_semaphore_t* b = make_semaphore(pair.waiter, HALO_SEMAPHORE_FLAG_NONE);
  halo_semaphore_t* c = make_semaphore(pair.exporter, HALO_SEMAPHORE_FLAG_NONE);
  halo_semaphore_compatibility_t compatibility = 0;
  check_or_die(halo_device_semaphore_compatibility(pair.waiter, a, &compatibility),
               "compatibility");
  const bool on_device = (compatibility & HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT) != 0;
  if (on_device != device_side) {
    state.SkipWithError(device_side ? "libhalo does not make the waiter wait on the "
                                      "exporter's semaphore on the device (the waiter lacks "
                                      "HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS; cuda "
                                      "reports it with HALO_CUDA_AUTOMATIC_DEVICE_WAITS=1)"
                                    : "a plain semaphore reports DEVICE_WAIT");
  }
  uint64_t value = 0;
  for (auto _ : state) {
    for (int i = 0; i < links; ++i) {
      ++value;
      // Each hop also waits for its own semaphore's previous value: only
      // semaphores order submissions (DESIGN.md §5), and those waits are
      // on the device's own queue, so they cost no hand-off.
      hop(pair.exporter, {{a, value - 1}}, a, value);
      hop(pair.waiter, {{a, value}, {b, value - 1}}, b, value);
      hop(pair.exporter, {{b, value}, {c, value - 1}}, c, value);
    }
    check_or_die(halo_semaphore_wait(c, value, HALO_DEADLINE_INFINITE_FUTURE), "wait");
  }
  state.counters["links"] = static_cast<double>(links);
  check_or_die(halo_device_wait_idle(pair.waiter, HALO_DEADLINE_INFINITE_FUTURE), "wait idle");
  check_or_die(halo_device_wait_idle(pair.exporter, HALO_DEADLINE_INFINITE_FUTURE), "wait idle");
  halo_semaphore_release(c);
  halo_semaphore_release(b);
  halo_semaphore_release(a);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  halo_registry_t* registry = nullptr;
  check_or_die(halo_registry_create(nullptr, &registry), "registry create");
  std::vector<halo_device_t*> devices;
  for (halo_device_t* device : halo::bench::create_every_device(registry)) {
    if (halo::bench::capabilities_of(device).features & HALO_DEVICE_FEATURE_QUEUES) {
      devices.push_back(device);
    } else {
      halo_device_release(device);
    }
  }
  int registered = 0;
  for (halo_device_t* exporter : devices) {
    for (halo_device_t* waiter : devices) {
      if (exporter == waiter || !shares_device_waits(exporter, waiter)) continue;
      const Pair pair{exporter, waiter};
      const std::string name = label_of(exporter, waiter) + "_to_" + label_of(waiter, exporter);
#ifdef HALO_BENCH_DEVICE_WAIT_NATIVE
      if (name == "vulkan_to_cuda") {
        halo::bench::register_native_three_hops(halo::bench::info_of(exporter).uuid, name);
      }
#endif
      for (int links : {1, 100}) {
        for (bool device_side : {true, false}) {
          const std::string benchmark_name = "BM_ThreeHops/" + name + "/chain_" +
                                             std::to_string(links) +
                                             (device_side ? "/device" : "/host");
          benchmark::RegisterBenchmark(benchmark_name.c_str(), chain, pair, device_side, links)
              ->UseRealTime()
              ->Unit(benchmark::kMicrosecond);
          ++registered;
        }
      }
    }
  }
  if (registered == 0) {
    std::fprintf(stderr, "halo-bench-device-wait: needs two devices, one exporting semaphores "
                         "as a type the other imports for device waits: on one GPU (vulkan and "
                         "cuda on an NVIDIA GPU), or as a host timeline (the cpu plugin and the "
                         "CTS's reference peer, HALO_ADD_PLUGIN_FILES=<libhalo_cts_peer.so>)\n");
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
