// Fill and copy: a recorded halo command buffer beside memset / memcpy.
//
// The halo side submits one command buffer holding one fill (or copy) and
// blocks until its signal is seen, so each iteration includes the submit
// round trip; at 4 KiB that round trip is the figure, at 64 MiB the memory
// bandwidth is.
#include <cstring>

#include "bench_device.hpp"
#include "bench_work.hpp"
#include "thread_pinning.hpp"
#include "work_benchmarks.hpp"

namespace halo::bench {
namespace {

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

}  // namespace

void fill_native_memset(benchmark::State& state) {
  ScopedAffinity restore_affinity;
  pin_current_thread(pin_plan().main_cpu);
  Buffer target(static_cast<uint64_t>(state.range(0)));
  for (auto _ : state) {
    std::memset(target.data(), 0x5a, target.size());
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

void fill_halo(benchmark::State& state) {
  ScopedAffinity restore_affinity;
  pin_current_thread(pin_plan().main_cpu);
  Buffer target(static_cast<uint64_t>(state.range(0)));
  RecordedWork work;
  const uint8_t pattern = 0x5a;
  check(halo_command_buffer_fill(work.command_buffer(), target.get(), 0,
                                 target.size(), &pattern, sizeof(pattern)),
        "halo_command_buffer_fill");
  work.finish();
  for (auto _ : state) work.run();
  set_bytes(state);
}

void copy_native_memcpy(benchmark::State& state) {
  ScopedAffinity restore_affinity;
  pin_current_thread(pin_plan().main_cpu);
  Buffer source(static_cast<uint64_t>(state.range(0)));
  Buffer target(static_cast<uint64_t>(state.range(0)));
  std::memset(source.data(), 0x5a, source.size());
  for (auto _ : state) {
    std::memcpy(target.data(), source.data(), target.size());
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

void copy_halo(benchmark::State& state) {
  ScopedAffinity restore_affinity;
  pin_current_thread(pin_plan().main_cpu);
  Buffer source(static_cast<uint64_t>(state.range(0)));
  Buffer target(static_cast<uint64_t>(state.range(0)));
  std::memset(source.data(), 0x5a, source.size());
  RecordedWork work;
  check(halo_command_buffer_copy(work.command_buffer(), source.get(), 0,
                                 target.get(), 0, target.size()),
        "halo_command_buffer_copy");
  work.finish();
  for (auto _ : state) work.run();
  set_bytes(state);
}

}  // namespace halo::bench
