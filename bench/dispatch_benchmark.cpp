// Dispatch: an empty kernel's round trip, and saxpy over 16 M floats.
//
// Baselines are what an application would write without halo, with the
// same threads already running: the empty dispatch is compared with handing
// an empty function to a parked thread through a futex and waiting for its
// answer (two blocking wake-ups, as halo's submit → worker → signal → host);
// saxpy with the same C loop split over as many persistent threads as the
// cpu plugin runs workgroups on (std::thread::hardware_concurrency), woken
// through a futex generation word.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <thread>
#include <vector>

#include "bench_device.hpp"
#include "bench_work.hpp"
#include "native_saxpy.h"
#include "thread_pinning.hpp"
#include "work_benchmarks.hpp"

namespace halo::bench {
namespace {

constexpr uint32_t kSaxpyCount = 16u << 20;
constexpr float kSaxpyA = 2.0f;

void futex_wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
}

// Blocks until |word| differs from |seen|; returns the new value.
uint32_t futex_wait_change(std::atomic<uint32_t>& word, uint32_t seen) {
  for (;;) {
    const uint32_t current = word.load(std::memory_order_acquire);
    if (current != seen) return current;
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE,
            seen, nullptr, nullptr, 0);
  }
}

// Kept out of line and reached through a pointer, as a kernel call is.
__attribute__((noinline)) void empty_function() { asm volatile(""); }
void (*volatile g_empty_function)() = &empty_function;

// Persistent threads that each run their share of a job when the
// generation word moves; the caller runs share 0 and waits for the rest.
class NativeThreads {
 public:
  template <typename Job>
  NativeThreads(unsigned count, Job job) : count_(count) {
    for (unsigned share = 1; share < count; ++share) {
      threads_.emplace_back([this, share, job] {
        uint32_t seen = 0;
        for (;;) {
          seen = futex_wait_change(generation_, seen);
          if (stopping_.load(std::memory_order_acquire)) return;
          job(share, count_);
          if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            futex_wake_all(remaining_);
          }
        }
      });
    }
  }
  ~NativeThreads() {
    stopping_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
    futex_wake_all(generation_);
    for (auto& thread : threads_) thread.join();
  }

  template <typename Job>
  void run(Job job) {
    remaining_.store(count_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    futex_wake_all(generation_);
    job(0u, count_);
    for (uint32_t left; (left = remaining_.load(std::memory_order_acquire));) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&remaining_),
              FUTEX_WAIT_PRIVATE, left, nullptr, nullptr, 0);
    }
  }

 private:
  const unsigned count_;
  std::atomic<uint32_t> generation_{0};
  std::atomic<uint32_t> remaining_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

unsigned worker_count() {
  unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : count;
}

void fill_inputs(Buffer& y, Buffer& x) {
  auto* ys = static_cast<float*>(y.data());
  auto* xs = static_cast<float*>(x.data());
  for (uint32_t i = 0; i < kSaxpyCount; ++i) {
    ys[i] = 1.0f;
    xs[i] = static_cast<float>(i & 1023);
  }
}

void saxpy_halo(benchmark::State& state, const char* entry_point,
                uint32_t workgroups) {
  Buffer y(uint64_t{kSaxpyCount} * sizeof(float));
  Buffer x(uint64_t{kSaxpyCount} * sizeof(float));
  fill_inputs(y, x);
  Kernels kernels;
  struct {
    float a;
    uint32_t n;
  } constants = {kSaxpyA, kSaxpyCount};
  halo_buffer_binding_t bindings[2] = {{y.get(), 0, HALO_WHOLE_BUFFER},
                                       {x.get(), 0, HALO_WHOLE_BUFFER}};
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = kernels.entry_point(entry_point);
  params.executable = kernels.get();
  params.workgroup_count[0] = workgroups;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  params.constant_size = sizeof(constants);
  params.constants = &constants;
  params.binding_count = 2;
  params.bindings = bindings;
  RecordedWork work;
  check(halo_command_buffer_dispatch(work.command_buffer(), &params),
        "halo_command_buffer_dispatch");
  work.finish();
  for (auto _ : state) work.run();
  state.SetBytesProcessed(state.iterations() * int64_t{kSaxpyCount} * 12);
}

}  // namespace

void empty_dispatch_native_futex_handoff(benchmark::State& state) {
  std::atomic<uint32_t> request{0};
  std::atomic<uint32_t> answer{0};
  std::thread worker([&] {
    uint32_t seen = 0;
    for (;;) {
      seen = futex_wait_change(request, seen);
      if (seen == UINT32_MAX) return;
      g_empty_function();
      answer.store(seen, std::memory_order_release);
      futex_wake_all(answer);
    }
  });
  uint32_t k = 0;
  for (auto _ : state) {
    request.store(++k, std::memory_order_release);
    futex_wake_all(request);
    futex_wait_change(answer, k - 1);
  }
  request.store(UINT32_MAX, std::memory_order_release);
  futex_wake_all(request);
  worker.join();
}

void empty_dispatch_halo(benchmark::State& state) {
  Kernels kernels;
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = kernels.entry_point("empty");
  params.executable = kernels.get();
  params.workgroup_count[0] = 1;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  RecordedWork work;
  check(halo_command_buffer_dispatch(work.command_buffer(), &params),
        "halo_command_buffer_dispatch");
  work.finish();
  for (auto _ : state) work.run();
}

void saxpy_native_threads(benchmark::State& state) {
  Buffer y(uint64_t{kSaxpyCount} * sizeof(float));
  Buffer x(uint64_t{kSaxpyCount} * sizeof(float));
  fill_inputs(y, x);
  auto* ys = static_cast<float*>(y.data());
  const auto* xs = static_cast<const float*>(x.data());
  auto job = [ys, xs](unsigned share, unsigned count) {
    const uint32_t begin =
        static_cast<uint32_t>(uint64_t{kSaxpyCount} * share / count);
    const uint32_t end =
        static_cast<uint32_t>(uint64_t{kSaxpyCount} * (share + 1) / count);
    native_saxpy(ys, xs, kSaxpyA, begin, end);
  };
  NativeThreads threads(worker_count(), job);
  for (auto _ : state) threads.run(job);
  state.SetBytesProcessed(state.iterations() * int64_t{kSaxpyCount} * 12);
}

void saxpy_chunked_halo(benchmark::State& state) {
  // One share per thread, as the native side splits the loop.
  saxpy_halo(state, "saxpy_chunked", worker_count());
}

void saxpy_portable_halo(benchmark::State& state) {
  saxpy_halo(state, "saxpy", kSaxpyCount / 64);
}

}  // namespace halo::bench
