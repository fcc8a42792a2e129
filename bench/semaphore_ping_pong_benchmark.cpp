// Host-to-host wake latency: a token bounced between two pinned threads.
//
// Thread A (the benchmark thread) signals ping = k and waits pong >= k; thread
// B (the helper) waits ping >= k and signals pong = k. Each side blocks in the
// kernel (no spinning) in every variant, so the figure is two blocking
// wake-ups per iteration: the native futex pair is the floor a futex-backed
// semaphore can reach, the condition variable is what an application would
// write without halo.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <latch>
#include <mutex>
#include <thread>

#include "bench_device.hpp"
#include "semaphore_benchmarks.hpp"
#include "thread_pinning.hpp"

namespace halo::bench {
namespace {

// Runs the ping-pong over |channel|, which provides ping(k), wait_ping(k),
// pong(k) and wait_pong(k). The helper thread lives for the whole run and
// makes exactly as many round trips as the timed loop.
template <typename Channel>
void run_ping_pong(benchmark::State& state, Channel& channel) {
  const PinPlan& plan = pin_plan();
  ScopedAffinity restore_affinity;
  pin_current_thread(plan.main_cpu);
  const int64_t rounds = state.max_iterations;
  std::latch helper_ready(1);
  std::thread helper([&] {
    pin_current_thread(plan.helper_cpu);
    helper_ready.count_down();
    for (int64_t k = 1; k <= rounds; ++k) {
      channel.wait_ping(static_cast<uint64_t>(k));
      channel.pong(static_cast<uint64_t>(k));
    }
  });
  helper_ready.wait();
  uint64_t k = 0;
  for (auto _ : state) {
    ++k;
    channel.ping(k);
    channel.wait_pong(k);
  }
  helper.join();
  state.SetLabel(plan.label);
}

// Blocks until the futex word |word| reaches |value| (wrap-around safe).
void futex_wait_for(std::atomic<uint32_t>& word, uint32_t value) {
  for (;;) {
    const uint32_t current = word.load(std::memory_order_acquire);
    if (static_cast<int32_t>(current - value) >= 0) return;
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE,
            current, nullptr, nullptr, 0);
  }
}

// Publishes |value| and wakes every waiter, as a semaphore signal does.
void futex_signal(std::atomic<uint32_t>& word, uint32_t value) {
  word.store(value, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
}

// Two raw futex words: the native floor.
struct FutexChannel {
  alignas(64) std::atomic<uint32_t> ping_word{0};
  alignas(64) std::atomic<uint32_t> pong_word{0};

  void ping(uint64_t k) { futex_signal(ping_word, static_cast<uint32_t>(k)); }
  void wait_ping(uint64_t k) {
    futex_wait_for(ping_word, static_cast<uint32_t>(k));
  }
  void pong(uint64_t k) { futex_signal(pong_word, static_cast<uint32_t>(k)); }
  void wait_pong(uint64_t k) {
    futex_wait_for(pong_word, static_cast<uint32_t>(k));
  }
};

// One counter guarded by a mutex, with a condition variable to wait on.
struct CondVarCounter {
  alignas(64) std::mutex mutex;
  std::condition_variable changed;
  uint64_t value = 0;

  void signal(uint64_t k) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      value = k;
    }
    changed.notify_all();
  }
  void wait_for(uint64_t k) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return value >= k; });
  }
};

// std::mutex + std::condition_variable: what portable code writes.
struct CondVarChannel {
  CondVarCounter ping_counter;
  CondVarCounter pong_counter;

  void ping(uint64_t k) { ping_counter.signal(k); }
  void wait_ping(uint64_t k) { ping_counter.wait_for(k); }
  void pong(uint64_t k) { pong_counter.signal(k); }
  void wait_pong(uint64_t k) { pong_counter.wait_for(k); }
};

// Two halo semaphores of the cpu device, with blocking waits.
struct HaloChannel {
  Semaphore ping_semaphore{0};
  Semaphore pong_semaphore{0};

  void ping(uint64_t k) {
    check(halo_semaphore_signal(ping_semaphore.get(), k),
          "halo_semaphore_signal(ping)");
  }
  void wait_ping(uint64_t k) {
    check(halo_semaphore_wait(ping_semaphore.get(), k,
                              HALO_DEADLINE_INFINITE_FUTURE),
          "halo_semaphore_wait(ping)");
  }
  void pong(uint64_t k) {
    check(halo_semaphore_signal(pong_semaphore.get(), k),
          "halo_semaphore_signal(pong)");
  }
  void wait_pong(uint64_t k) {
    check(halo_semaphore_wait(pong_semaphore.get(), k,
                              HALO_DEADLINE_INFINITE_FUTURE),
          "halo_semaphore_wait(pong)");
  }
};

}  // namespace

void ping_pong_native_futex(benchmark::State& state) {
  FutexChannel channel;
  run_ping_pong(state, channel);
}

void ping_pong_condition_variable(benchmark::State& state) {
  CondVarChannel channel;
  run_ping_pong(state, channel);
}

void ping_pong_halo(benchmark::State& state) {
  HaloChannel channel;
  run_ping_pong(state, channel);
}

}  // namespace halo::bench
