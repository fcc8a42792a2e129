// halo-bench-order: what the ordering rule of command buffers costs. The
// commands of a command buffer take effect in recording order; a plugin may
// overlap those whose ranges do not conflict and orders the rest itself
// (abi/include/halo/command_buffer.h). Here a command buffer holds 256
// independent add_one dispatches of 4,096 elements (64 workgroups) each, on
// its own buffer (BM_Independent256Buffers) or its own range of one buffer
// (BM_Independent256Ranges), recorded once
//   - halo:            with no barrier, relying on the rule;
//   - barrier_between: with a barrier between each two dispatches,
// and submitted and waited for each iteration. If the plugin's hazard
// tracking does not serialise independent work, the first is no slower than
// the second (compare.py's goal: halo / barrier_between <= 1). Both sides are
// halo on the same device, interleaved: the baseline is what an application
// writes to force an order, not a native API.
//
// The device is chosen at run time: HALO_BENCH_PLUGIN names the plugin (cpu,
// vulkan, opencl: this build's manifest of that name; anything with a '/' is
// a manifest's path; default cpu), HALO_BENCH_DEVICE its device (default 0).
// The kernel is the CTS's add_one in the first format the device lists.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "halo/halo.h"
#include "thread_pinning.hpp"

#ifndef HALO_BENCH_MANIFEST_DIR
#error "HALO_BENCH_MANIFEST_DIR must name the build's plugin manifest folder"
#endif
#ifndef HALO_BENCH_KERNEL_DIR
#error "HALO_BENCH_KERNEL_DIR must name the folder of the CTS kernels"
#endif

namespace {

constexpr uint32_t kDispatches = 256;
constexpr uint32_t kElements = 4096;
constexpr uint64_t kBytes = kElements * sizeof(uint32_t);

halo_registry_t* g_registry = nullptr;
halo_device_t* g_device = nullptr;
halo_executable_t* g_add_one = nullptr;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "halo-bench-order: %s\n", what.c_str());
  std::exit(1);
}

// Exits naming |what| and the status unless |status| is OK: a benchmark with
// a broken setup has nothing to measure.
void check(halo_status_t status, const char* what) {
  if (status == HALO_OK) [[likely]] {
    return;
  }
  const std::string text = std::string(what) + ": " +
                           halo_status_code_name(halo_status_code(status)) +
                           ": " + halo_status_message(status);
  halo_status_free(status);
  die(text);
}

std::string environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : fallback;
}

// Opens exactly the plugin HALO_BENCH_PLUGIN names, and its device.
void open_device() {
  std::string manifest = environment("HALO_BENCH_PLUGIN", "cpu");
  if (manifest.find('/') == std::string::npos) {
    manifest = std::string(HALO_BENCH_MANIFEST_DIR) + "/" + manifest + ".json";
  }
  const char* const paths[] = {manifest.c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  check(halo_registry_create(&options, &g_registry), "halo_registry_create");
  size_t count = 0;
  check(halo_registry_device_count(g_registry, &count),
        "halo_registry_device_count");
  const size_t index =
      std::strtoull(environment("HALO_BENCH_DEVICE", "0").c_str(), nullptr, 10);
  if (index >= count) {
    die("no device " + std::to_string(index) + " from " + manifest);
  }
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  check(halo_registry_device_info(g_registry, index, &info, nullptr),
        "halo_registry_device_info");
  benchmark::AddCustomContext("halo_device", info.name);
  halo_device_params_t params = {};
  params.struct_size = sizeof(params);
  check(halo_registry_create_device(g_registry, index, &params, &g_device),
        "halo_registry_create_device");
}

// Loads add_one in the first of the device's formats that has a file.
void load_kernel() {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  check(halo_device_query_capabilities(g_device, &caps),
        "halo_device_query_capabilities");
  const std::string formats(
      caps.executable_formats,
      strnlen(caps.executable_formats, sizeof(caps.executable_formats)));
  size_t start = 0;
  while (start < formats.size()) {
    size_t end = formats.find(',', start);
    if (end == std::string::npos) end = formats.size();
    const std::string format = formats.substr(start, end - start);
    start = end + 1;
    std::ifstream file(
        std::string(HALO_BENCH_KERNEL_DIR) + "/add_one." + format,
        std::ios::binary);
    if (!file) continue;
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    halo_executable_params_t params = {};
    params.struct_size = sizeof(params);
    params.format = format.c_str();
    params.data = bytes.data();
    params.data_size = bytes.size();
    check(halo_executable_create(g_device, &params, &g_add_one),
          "halo_executable_create");
    return;
  }
  die("no add_one kernel in " + std::string(HALO_BENCH_KERNEL_DIR) +
      " for the formats [" + formats + "]; build the halo_cts_kernels target");
}

// A buffer the kernel reads and writes, in the device's own memory where it
// has some.
halo_buffer_t* allocate(uint64_t size) {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  check(halo_device_query_capabilities(g_device, &caps),
        "halo_device_query_capabilities");
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = (caps.memory_types & HALO_MEMORY_TYPE_DEVICE_LOCAL) != 0
                           ? HALO_MEMORY_TYPE_DEVICE_LOCAL
                           : HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_DISPATCH_STORAGE;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  check(halo_buffer_allocate(g_device, &params, &buffer),
        "halo_buffer_allocate");
  return buffer;
}

// Records the 256 dispatches, each over |bindings|[i], into a REUSABLE
// command buffer, with a barrier between each two when |barriers|; then
// submits it and waits, once per iteration.
void run(benchmark::State& state,
         const std::vector<halo_buffer_binding_t>& bindings, bool barriers) {
  halo::bench::ScopedAffinity affinity;
  halo::bench::pin_current_thread(halo::bench::pin_plan().main_cpu);
  halo_command_buffer_t* commands = nullptr;
  check(halo_command_buffer_create(g_device, HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                   &commands),
        "halo_command_buffer_create");
  check(halo_command_buffer_begin(commands), "halo_command_buffer_begin");
  const uint32_t n = kElements;
  for (uint32_t i = 0; i < kDispatches; ++i) {
    if (barriers && i > 0) {
      check(halo_command_buffer_barrier(commands),
            "halo_command_buffer_barrier");
    }
    halo_dispatch_params_t params = {};
    params.struct_size = sizeof(params);
    params.executable = g_add_one;
    params.workgroup_count[0] = kElements / 64;
    params.workgroup_count[1] = 1;
    params.workgroup_count[2] = 1;
    params.constant_size = sizeof(n);
    params.constants = &n;
    params.binding_count = 1;
    params.bindings = &bindings[i];
    check(halo_command_buffer_dispatch(commands, &params),
          "halo_command_buffer_dispatch");
  }
  check(halo_command_buffer_end(commands), "halo_command_buffer_end");
  halo_semaphore_t* done = nullptr;
  check(halo_semaphore_create(g_device, 0, HALO_SEMAPHORE_FLAG_NONE, &done),
        "halo_semaphore_create");
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    halo_queue_execute_info_t info = {};
    info.struct_size = sizeof(info);
    info.affinity = HALO_QUEUE_AFFINITY_ANY;
    info.signal_count = 1;
    info.signal_semaphores = &done;
    info.signal_values = &value;
    info.command_buffer_count = 1;
    info.command_buffers = &commands;
    check(halo_device_queue_execute(g_device, &info),
          "halo_device_queue_execute");
    check(halo_semaphore_wait(done, value, HALO_DEADLINE_INFINITE_FUTURE),
          "halo_semaphore_wait");
  }
  state.SetItemsProcessed(state.iterations() * kDispatches);
  halo_semaphore_release(done);
  halo_command_buffer_release(commands);
}

void own_buffers(benchmark::State& state, bool barriers) {
  std::vector<halo_buffer_t*> buffers;
  std::vector<halo_buffer_binding_t> bindings;
  for (uint32_t i = 0; i < kDispatches; ++i) {
    buffers.push_back(allocate(kBytes));
    bindings.push_back({buffers.back(), 0, kBytes});
  }
  run(state, bindings, barriers);
  for (halo_buffer_t* buffer : buffers) halo_buffer_release(buffer);
}

void own_ranges(benchmark::State& state, bool barriers) {
  halo_buffer_t* buffer = allocate(kDispatches * kBytes);
  std::vector<halo_buffer_binding_t> bindings;
  for (uint32_t i = 0; i < kDispatches; ++i)
    bindings.push_back({buffer, i * kBytes, kBytes});
  run(state, bindings, barriers);
  halo_buffer_release(buffer);
}

void register_benchmarks() {
  // Every figure involves the plugin's threads, so the wall clock counts.
  benchmark::RegisterBenchmark("BM_Independent256Buffers/barrier_between",
                               own_buffers, true)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Independent256Buffers/halo", own_buffers,
                               false)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Independent256Ranges/barrier_between",
                               own_ranges, true)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Independent256Ranges/halo", own_ranges,
                               false)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  open_device();
  load_kernel();
  benchmark::AddCustomContext("pinning", halo::bench::pin_plan().label);
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  halo_executable_release(g_add_one);
  halo_device_release(g_device);
  halo_registry_release(g_registry);
  return 0;
}
