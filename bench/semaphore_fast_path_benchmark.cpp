// The uncontended fast paths — query, poll-wait, signal — beside a plain
// std::atomic<uint64_t> doing the same work. One thread, pinned to the same
// core on both sides; nobody waits, so no side makes a syscall.
//
// The atomic is the floor: a halo call adds the exported wrapper's argument
// checks, the vtable call into the plugin, and whatever the plugin does on top
// of its own atomic.
#include <atomic>
#include <cstdint>

#include "bench_device.hpp"
#include "semaphore_benchmarks.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {
namespace {

// The payload the query and poll benchmarks read.
constexpr uint64_t kPayload = 42;

// A native timeline: one 64-bit atomic on its own cache line.
struct alignas(64) NativeTimeline {
  std::atomic<uint64_t> value{0};
};

// Pins the benchmark thread for the scope of one benchmark run.
class PinnedScope {
 public:
  explicit PinnedScope(benchmark::State& state) {
    pin_current_thread(pin_plan().main_cpu);
    state.SetLabel(pin_plan().label);
  }

 private:
  ScopedAffinity restore_;
};

// The atomic load behind one opaque call through a function pointer: the
// least any C ABI entry point reached through a table costs. A decomposition
// baseline, not the goal's: it shows how much of halo's figure is the call
// itself and how much is what halo does around it.
__attribute__((noinline)) uint64_t load_payload(const NativeTimeline* timeline) {
  return timeline->value.load(std::memory_order_acquire);
}
using LoadPayload = uint64_t (*)(const NativeTimeline*);

}  // namespace

void query_native_atomic(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  timeline.value.store(kPayload);
  for (auto _ : state) {
    uint64_t value = timeline.value.load(std::memory_order_acquire);
    benchmark::DoNotOptimize(value);
  }
}

void query_native_atomic_indirect_call(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  timeline.value.store(kPayload);
  LoadPayload load = &load_payload;
  benchmark::DoNotOptimize(load);  // The compiler no longer knows the target.
  for (auto _ : state) {
    uint64_t value = load(&timeline);
    benchmark::DoNotOptimize(value);
  }
}

void query_halo(benchmark::State& state) {
  PinnedScope pinned(state);
  Semaphore semaphore(kPayload);
  for (auto _ : state) {
    uint64_t value = 0;
    check(halo_semaphore_query(semaphore.get(), &value),
          "halo_semaphore_query");
    benchmark::DoNotOptimize(value);
  }
}

void poll_wait_reached_native_atomic(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  timeline.value.store(kPayload);
  uint64_t target = kPayload;
  benchmark::DoNotOptimize(target);
  for (auto _ : state) {
    bool reached = timeline.value.load(std::memory_order_acquire) >= target;
    benchmark::DoNotOptimize(reached);
  }
}

void poll_wait_reached_halo(benchmark::State& state) {
  PinnedScope pinned(state);
  Semaphore semaphore(kPayload);
  for (auto _ : state) {
    check(halo_semaphore_wait(semaphore.get(), kPayload,
                              HALO_DEADLINE_INFINITE_PAST),
          "halo_semaphore_wait(reached)");
  }
}

void poll_wait_not_reached_native_atomic(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  timeline.value.store(kPayload);
  uint64_t target = kPayload + 1;
  benchmark::DoNotOptimize(target);
  for (auto _ : state) {
    bool reached = timeline.value.load(std::memory_order_acquire) >= target;
    benchmark::DoNotOptimize(reached);
  }
}

void poll_wait_not_reached_halo(benchmark::State& state) {
  PinnedScope pinned(state);
  Semaphore semaphore(kPayload);
  // The code is checked once, outside the timed loop; inside it the status
  // is only tested for non-OK and freed (a no-op on the immortal status the
  // poll returns, but the caller owns it and must free it).
  halo_status_t first = halo_semaphore_wait(semaphore.get(), kPayload + 1,
                                            HALO_DEADLINE_INFINITE_PAST);
  if (halo_status_code(first) != HALO_STATUS_DEADLINE_EXCEEDED) {
    die("halo_semaphore_wait(not reached) did not return DEADLINE_EXCEEDED",
        first);
  }
  halo_status_free(first);
  for (auto _ : state) {
    halo_status_t status = halo_semaphore_wait(
        semaphore.get(), kPayload + 1, HALO_DEADLINE_INFINITE_PAST);
    if (status == HALO_OK) [[unlikely]] {
      die("halo_semaphore_wait(not reached) returned OK", status);
    }
    halo_status_free(status);
  }
}

void signal_native_atomic_store(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  uint64_t value = 0;
  for (auto _ : state) {
    timeline.value.store(++value, std::memory_order_release);
    benchmark::ClobberMemory();
  }
}

void signal_native_atomic_fetch_add(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  for (auto _ : state) {
    uint64_t previous = timeline.value.fetch_add(1, std::memory_order_acq_rel);
    benchmark::DoNotOptimize(previous);
  }
}

// What a timeline signal must do natively: refuse a value that does not grow
// the payload, so a compare-and-swap rather than a blind store.
void signal_native_atomic_cas(benchmark::State& state) {
  PinnedScope pinned(state);
  NativeTimeline timeline;
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    uint64_t current = timeline.value.load(std::memory_order_relaxed);
    bool stored = false;
    while (current < value && !stored) {
      stored = timeline.value.compare_exchange_weak(
          current, value, std::memory_order_acq_rel, std::memory_order_relaxed);
    }
    benchmark::DoNotOptimize(stored);
  }
}

void signal_halo(benchmark::State& state) {
  PinnedScope pinned(state);
  Semaphore semaphore(0);
  uint64_t value = 0;
  for (auto _ : state) {
    check(halo_semaphore_signal(semaphore.get(), ++value),
          "halo_semaphore_signal");
  }
}

}  // namespace halo::bench
