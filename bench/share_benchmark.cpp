// halo-bench-share: a 64 MiB buffer handed from the cpu device to a device of
// another plugin, zero-copy beside through the host.
//
// Each iteration is one pipeline step: the cpu device fills the 64 MiB
// buffer, then the other device copies all of it into memory of its own.
//   zero_copy  the cpu buffer is exported as a HOST_ALLOCATION and imported
//              by the other device once, at set-up; the copy reads it where
//              the fill wrote it, waiting on the cpu's semaphore.
//   named_directly  as zero_copy, but the other device's copy names the cpu
//              buffer itself and libhalo imports it (external.h, "Buffers
//              named by another device's commands"): what the application
//              writes is one line shorter and should cost the same.
//   host_copy  the hand-off of a framework without sharing: the host waits
//              for the fill, copies the 64 MiB with memcpy into a
//              host-visible buffer of the other device, which then copies it.
// Both variants run the same device work; what differs is the hand-off.
// Every device that imports HOST_ALLOCATION is paired with the cpu device.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_facts.hpp"
#include "halo/halo.h"

namespace {

constexpr uint64_t kBytes = uint64_t{64} << 20;

using halo::bench::check_or_die;

halo_buffer_t* allocate(halo_device_t* device, halo_memory_type_t memory,
                        halo_buffer_usage_t usage, halo_buffer_flags_t flags = 0) {
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = memory;
  params.usage = usage;
  params.flags = flags;
  params.size = kBytes;
  halo_buffer_t* buffer = nullptr;
  check_or_die(halo_buffer_allocate(device, &params, &buffer), "buffer allocate");
  return buffer;
}

// A reusable command buffer holding what |record| records.
template <typename Record>
halo_command_buffer_t* record(halo_device_t* device, Record commands) {
  halo_command_buffer_t* command_buffer = nullptr;
  check_or_die(halo_command_buffer_create(device, HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                   &command_buffer),
        "command buffer create");
  check_or_die(halo_command_buffer_begin(command_buffer), "begin");
  commands(command_buffer);
  check_or_die(halo_command_buffer_end(command_buffer), "end");
  return command_buffer;
}

void execute(halo_device_t* device, halo_command_buffer_t* commands,
             halo_semaphore_t* wait, uint64_t wait_value, halo_semaphore_t* signal,
             uint64_t signal_value) {
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = wait != nullptr ? 1 : 0;
  info.wait_semaphores = &wait;
  info.wait_values = &wait_value;
  info.signal_count = 1;
  info.signal_semaphores = &signal;
  info.signal_values = &signal_value;
  info.command_buffer_count = 1;
  info.command_buffers = &commands;
  check_or_die(halo_device_queue_execute(device, &info), "queue execute");
}

halo_semaphore_t* semaphore(halo_device_t* device) {
  halo_semaphore_t* semaphore = nullptr;
  check_or_die(halo_semaphore_create(device, 0, 0, &semaphore), "semaphore create");
  return semaphore;
}

void wait(halo_semaphore_t* semaphore, uint64_t value) {
  check_or_die(halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_FUTURE), "wait");
}

// The objects of one producer → consumer pair; kept for the whole run.
struct Pair {
  halo_device_t* producer = nullptr;
  halo_device_t* consumer = nullptr;
  halo_buffer_t* produced = nullptr;   // cpu, exportable, mapped for host_copy
  halo_buffer_t* imported = nullptr;   // consumer's view of |produced|
  halo_buffer_t* staging = nullptr;    // consumer, host-visible (host_copy)
  halo_buffer_t* local = nullptr;      // consumer, device-local: the target
  halo_command_buffer_t* fill = nullptr;
  halo_command_buffer_t* copy_imported = nullptr;
  halo_command_buffer_t* copy_named = nullptr;  // names |produced| itself
  halo_command_buffer_t* copy_staging = nullptr;
  void* produced_bytes = nullptr;
  void* staging_bytes = nullptr;
};

Pair make_pair(halo_device_t* producer, halo_device_t* consumer) {
  Pair pair{producer, consumer};
  const halo_buffer_usage_t transfer =
      HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET;
  pair.produced = allocate(producer, HALO_MEMORY_TYPE_HOST_VISIBLE,
                           transfer | HALO_BUFFER_USAGE_MAPPING, HALO_BUFFER_FLAG_EXPORTABLE);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  check_or_die(halo_buffer_export(pair.produced, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle),
        "buffer export");
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE;
  params.size = kBytes;
  check_or_die(halo_buffer_import(consumer, &params, &handle, &pair.imported), "buffer import");
  pair.staging = allocate(consumer,
                          HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT,
                          HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_MAPPING);
  pair.local = allocate(consumer, HALO_MEMORY_TYPE_DEVICE_LOCAL,
                        HALO_BUFFER_USAGE_TRANSFER_TARGET);
  const uint32_t pattern = 0x3f800000u;
  pair.fill = record(producer, [&](halo_command_buffer_t* commands) {
    check_or_die(halo_command_buffer_fill(commands, pair.produced, 0, kBytes, &pattern,
                                   sizeof(pattern)),
          "fill");
  });
  pair.copy_imported = record(consumer, [&](halo_command_buffer_t* commands) {
    check_or_die(halo_command_buffer_copy(commands, pair.imported, 0, pair.local, 0, kBytes), "copy");
  });
  pair.copy_named = record(consumer, [&](halo_command_buffer_t* commands) {
    check_or_die(halo_command_buffer_copy(commands, pair.produced, 0, pair.local, 0, kBytes), "copy");
  });
  pair.copy_staging = record(consumer, [&](halo_command_buffer_t* commands) {
    check_or_die(halo_command_buffer_copy(commands, pair.staging, 0, pair.local, 0, kBytes), "copy");
  });
  check_or_die(halo_buffer_map_range(pair.produced, 0, kBytes, &pair.produced_bytes), "map");
  check_or_die(halo_buffer_map_range(pair.staging, 0, kBytes, &pair.staging_bytes), "map");
  return pair;
}

// The consumer's |copy| reads the producer's memory where the fill wrote it.
void zero_copy(benchmark::State& state, const Pair& pair, halo_command_buffer_t* copy) {
  halo_semaphore_t* produced = semaphore(pair.producer);
  halo_semaphore_t* consumed = semaphore(pair.consumer);
  uint64_t step = 0;
  for (auto _ : state) {
    ++step;
    execute(pair.producer, pair.fill, nullptr, 0, produced, step);
    execute(pair.consumer, copy, produced, step, consumed, step);
    wait(consumed, step);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  halo_semaphore_release(consumed);
  halo_semaphore_release(produced);
}

void host_copy(benchmark::State& state, const Pair& pair) {
  halo_semaphore_t* produced = semaphore(pair.producer);
  halo_semaphore_t* consumed = semaphore(pair.consumer);
  uint64_t step = 0;
  for (auto _ : state) {
    ++step;
    execute(pair.producer, pair.fill, nullptr, 0, produced, step);
    wait(produced, step);
    std::memcpy(pair.staging_bytes, pair.produced_bytes, kBytes);
    execute(pair.consumer, pair.copy_staging, nullptr, 0, consumed, step);
    wait(consumed, step);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  halo_semaphore_release(consumed);
  halo_semaphore_release(produced);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  halo_registry_t* registry = nullptr;
  check_or_die(halo_registry_create(nullptr, &registry), "registry create");
  size_t count = 0;
  check_or_die(halo_registry_device_count(registry, &count), "device count");
  halo_device_t* cpu = nullptr;
  std::vector<std::pair<std::string, halo_device_t*>> consumers;
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = nullptr;
    if (halo_status_t status = halo_registry_create_device(registry, i, nullptr, &device)) {
      halo_status_free(status);
      continue;
    }
    const halo_device_capabilities_t caps = halo::bench::capabilities_of(device);
    const std::string plugin = halo::bench::native_api_name(device);
    if (plugin == "host" && cpu == nullptr &&
        (caps.buffer_export_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION)) {
      cpu = device;
    } else if ((caps.buffer_import_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) &&
               (caps.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS)) {
      consumers.emplace_back(plugin + std::to_string(i), device);
    } else {
      halo_device_release(device);
    }
  }
  if (cpu == nullptr || consumers.empty()) {
    std::fprintf(stderr, "halo-bench-share: needs the cpu device and a device of another "
                         "plugin that imports host allocations\n");
    return 1;
  }
  std::vector<Pair> pairs;
  pairs.reserve(consumers.size());
  for (const auto& [name, consumer] : consumers) {
    const Pair& pair = pairs.emplace_back(make_pair(cpu, consumer));
    const std::string family = "BM_HandOff64MiB/cpu_to_" + name + "/";
    benchmark::RegisterBenchmark((family + "zero_copy").c_str(), zero_copy, pair,
                                 pair.copy_imported)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((family + "named_directly").c_str(), zero_copy, pair,
                                 pair.copy_named)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((family + "host_copy").c_str(), host_copy, pair)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // The process ends here; the driver releases everything with the registry.
  return 0;
}
