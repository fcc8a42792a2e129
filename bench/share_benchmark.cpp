// halo-bench-share: a 64 MiB buffer handed from a device of one plugin to a
// device of another, zero-copy beside through the host.
//
// Each iteration is one pipeline step: the producer fills the 64 MiB
// buffer, then the consumer copies all of it into memory of its own. Two
// kinds of pair:
//   host memory    the cpu device's buffer, shared as a HOST_ALLOCATION with
//                  every device that imports one;
//   device memory  a GPU's device-local buffer exported as an OPAQUE_FD by
//                  one plugin (vulkan) and imported by another plugin's
//                  device of the same GPU (cuda, NVIDIA's opencl).
// Variants:
//   zero_copy  the producer's buffer is exported and imported by the
//              consumer once, at set-up; the copy reads it where the fill
//              wrote it, waiting on the producer's semaphore.
//   named_directly  as zero_copy, but the consumer's copy names the
//              producer's buffer itself and libhalo imports it (external.h,
//              "Buffers named by another device's commands"): what the
//              application writes is one line shorter and should cost the
//              same.
//   host_copy  the hand-off of a framework without sharing: the host waits
//              for the fill (and, for device memory, the producer's copy of
//              it into host-visible memory of its own), copies the 64 MiB
//              with memcpy into a host-visible buffer of the consumer, which
//              then copies it.
// Every variant runs the same fill and final copy; what differs is the
// hand-off.
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
  halo_buffer_t* produced = nullptr;   // producer's, exportable
  halo_buffer_t* imported = nullptr;   // consumer's view of |produced|
  halo_buffer_t* readable = nullptr;   // producer, host-visible (host_copy)
  halo_buffer_t* staging = nullptr;    // consumer, host-visible (host_copy)
  halo_buffer_t* local = nullptr;      // consumer, device-local: the target
  halo_command_buffer_t* fill = nullptr;
  // The fill, then (device memory) a copy into |readable|.
  halo_command_buffer_t* fill_readable = nullptr;
  halo_command_buffer_t* copy_imported = nullptr;
  halo_command_buffer_t* copy_named = nullptr;  // names |produced| itself
  halo_command_buffer_t* copy_staging = nullptr;
  void* readable_bytes = nullptr;
  void* staging_bytes = nullptr;
  // The host flushes and invalidates what it maps (NVIDIA's OpenCL has no
  // host-coherent memory).
  bool readable_coherent = false;
  bool staging_coherent = false;
};

// Host-visible memory of |device|, coherent where it has such memory.
halo_memory_type_t host_memory_of(halo_device_t* device) {
  const halo_memory_type_t coherent =
      HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;
  const halo_memory_type_t types = halo::bench::capabilities_of(device).memory_types;
  return (types & coherent) == coherent ? coherent : HALO_MEMORY_TYPE_HOST_VISIBLE;
}

bool coherent(halo_memory_type_t memory) {
  return (memory & HALO_MEMORY_TYPE_HOST_COHERENT) != 0;
}

// A pair sharing |produced| through a handle of |type|: HOST_ALLOCATION
// (host memory, which the host then reads in place) or OPAQUE_FD (device
// memory, which the host reads through a copy).
Pair make_pair(halo_device_t* producer, halo_device_t* consumer,
               halo_external_handle_type_t type) {
  Pair pair{producer, consumer};
  const bool host = type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  const halo_memory_type_t shared_memory =
      host ? HALO_MEMORY_TYPE_HOST_VISIBLE : HALO_MEMORY_TYPE_DEVICE_LOCAL;
  const halo_buffer_usage_t transfer =
      HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET;
  pair.produced = allocate(producer, shared_memory,
                           transfer | (host ? HALO_BUFFER_USAGE_MAPPING : 0),
                           HALO_BUFFER_FLAG_EXPORTABLE);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  check_or_die(halo_buffer_export(pair.produced, type, &handle), "buffer export");
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = shared_memory;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE;
  params.size = kBytes;
  check_or_die(halo_buffer_import(consumer, &params, &handle, &pair.imported), "buffer import");
  const halo_memory_type_t readable_memory = host ? shared_memory : host_memory_of(producer);
  pair.readable = host ? pair.produced
                       : allocate(producer, readable_memory,
                                  HALO_BUFFER_USAGE_TRANSFER_TARGET | HALO_BUFFER_USAGE_MAPPING);
  pair.readable_coherent = coherent(readable_memory);
  const halo_memory_type_t staging_memory = host_memory_of(consumer);
  pair.staging = allocate(consumer, staging_memory,
                          HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_MAPPING);
  pair.staging_coherent = coherent(staging_memory);
  pair.local = allocate(consumer, HALO_MEMORY_TYPE_DEVICE_LOCAL,
                        HALO_BUFFER_USAGE_TRANSFER_TARGET);
  const uint32_t pattern = 0x3f800000u;
  auto fill = [&](halo_command_buffer_t* commands) {
    check_or_die(halo_command_buffer_fill(commands, pair.produced, 0, kBytes, &pattern,
                                          sizeof(pattern)),
                 "fill");
  };
  pair.fill = record(producer, fill);
  pair.fill_readable = record(producer, [&](halo_command_buffer_t* commands) {
    fill(commands);
    if (host) return;
    check_or_die(halo_command_buffer_copy(commands, pair.produced, 0, pair.readable, 0, kBytes),
                 "copy");
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
  check_or_die(halo_buffer_map_range(pair.readable, 0, kBytes, &pair.readable_bytes), "map");
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
    execute(pair.producer, pair.fill_readable, nullptr, 0, produced, step);
    wait(produced, step);
    if (!pair.readable_coherent) {
      check_or_die(halo_buffer_invalidate_range(pair.readable, 0, kBytes), "invalidate");
    }
    std::memcpy(pair.staging_bytes, pair.readable_bytes, kBytes);
    if (!pair.staging_coherent) {
      check_or_die(halo_buffer_flush_range(pair.staging, 0, kBytes), "flush");
    }
    execute(pair.consumer, pair.copy_staging, nullptr, 0, consumed, step);
    wait(consumed, step);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  halo_semaphore_release(consumed);
  halo_semaphore_release(produced);
}

void register_pair(const Pair& pair, const std::string& name) {
  const std::string family = "BM_HandOff64MiB/" + name + "/";
  benchmark::RegisterBenchmark((family + "zero_copy").c_str(), zero_copy, pair,
                               pair.copy_imported)
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((family + "named_directly").c_str(), zero_copy, pair,
                               pair.copy_named)
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((family + "host_copy").c_str(), host_copy, pair)
      ->UseRealTime()->Unit(benchmark::kMillisecond);
}

// Whether |consumer| (of another plugin) takes |type| buffers from |producer|.
bool shares(halo_device_t* producer, halo_device_t* consumer, halo_external_handle_type_t type) {
  const halo_device_capabilities_t from = halo::bench::capabilities_of(producer);
  const halo_device_capabilities_t to = halo::bench::capabilities_of(consumer);
  if (!(from.buffer_export_types & type) || !(to.buffer_import_types & type) ||
      !(to.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS) ||
      halo::bench::native_api_name(producer) == halo::bench::native_api_name(consumer)) {
    return false;
  }
  return type != HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD || halo::bench::same_gpu(producer, consumer);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  halo_registry_t* registry = nullptr;
  check_or_die(halo_registry_create(nullptr, &registry), "registry create");
  std::vector<halo_device_t*> devices = halo::bench::create_every_device(registry);
  // Host memory from the first cpu device; device memory from every vulkan
  // device. The devices stay alive for the run (see the end).
  std::vector<halo_device_t*> host_producers, device_producers;
  for (halo_device_t* device : devices) {
    const std::string api = halo::bench::native_api_name(device);
    if (api == "host" && host_producers.empty()) host_producers.push_back(device);
    if (api == "vulkan") device_producers.push_back(device);
  }
  std::vector<Pair> pairs;
  pairs.reserve(devices.size() * devices.size());
  auto pair_all = [&](const std::vector<halo_device_t*>& producers,
                      halo_external_handle_type_t type, const std::string& from,
                      const std::string& suffix) {
    for (halo_device_t* producer : producers) {
      for (size_t j = 0; j < devices.size(); ++j) {
        if (!shares(producer, devices[j], type)) continue;
        const std::string name = from + "_to_" + halo::bench::native_api_name(devices[j]) +
                                 std::to_string(j) + suffix;
        register_pair(pairs.emplace_back(make_pair(producer, devices[j], type)), name);
      }
    }
  };
  pair_all(host_producers, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, "cpu", "");
  pair_all(device_producers, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, "vulkan", "_device_memory");
  if (pairs.empty()) {
    std::fprintf(stderr, "halo-bench-share: needs two plugins' devices that share buffers: "
                         "the cpu device and one that imports host allocations, or a vulkan "
                         "device and another plugin's device of the same GPU that imports "
                         "its OPAQUE_FD memory\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // The process ends here; the driver releases everything with the registry.
  return 0;
}
