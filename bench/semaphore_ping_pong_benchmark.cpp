// Host-to-host wake latency: a token bounced between two pinned threads.
//
// Thread A (the benchmark thread) signals ping = k and waits pong >= k; thread
// B (the helper) waits ping >= k and signals pong = k. Each side blocks in the
// kernel (no spinning) in every variant, so the figure is two blocking
// wake-ups per iteration: the native futex pair is the floor a futex-backed
// semaphore can reach, the condition variable is what an application would
// write without halo.
//
// The shared variants bounce it across a page each thread maps on its own,
// as two processes would: raw futex words on a memfd, or halo host timelines
// (HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD), each thread on its own side
// of an export and its import. Threads of one process stand in for the two
// processes: an import maps the page again and starts its own watcher, as in
// another process, and the benchmark's timing stays in one clock.
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
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
// |shared|: the word is on a page other processes map (a non-private futex).
void futex_wait_for(std::atomic<uint32_t>& word, uint32_t value,
                    bool shared = false) {
  for (;;) {
    const uint32_t current = word.load(std::memory_order_acquire);
    if (static_cast<int32_t>(current - value) >= 0) return;
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word),
            shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, current, nullptr,
            nullptr, 0);
  }
}

// Publishes |value| and wakes every waiter, as a semaphore signal does.
void futex_signal(std::atomic<uint32_t>& word, uint32_t value,
                  bool shared = false) {
  word.store(value, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word),
          shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr,
          0);
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

void signal_or_die(halo_semaphore_t* semaphore, uint64_t k) {
  check(halo_semaphore_signal(semaphore, k), "halo_semaphore_signal");
}

void wait_or_die(halo_semaphore_t* semaphore, uint64_t k) {
  check(halo_semaphore_wait(semaphore, k, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_semaphore_wait");
}

// Two halo semaphores of the cpu device, with blocking waits.
struct HaloChannel {
  Semaphore ping_semaphore{0};
  Semaphore pong_semaphore{0};

  void ping(uint64_t k) { signal_or_die(ping_semaphore.get(), k); }
  void wait_ping(uint64_t k) { wait_or_die(ping_semaphore.get(), k); }
  void pong(uint64_t k) { signal_or_die(pong_semaphore.get(), k); }
  void wait_pong(uint64_t k) { wait_or_die(pong_semaphore.get(), k); }
};

// Two futex words on one memfd page, mapped once for each thread.
class SharedFutexChannel {
 public:
  SharedFutexChannel() {
    const int fd = memfd_create("halo-bench-ping-pong", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, kPage) != 0) std::abort();
    a_side_ = map(fd);
    b_side_ = map(fd);
    close(fd);
  }
  ~SharedFutexChannel() {
    munmap(a_side_, kPage);
    munmap(b_side_, kPage);
  }
  SharedFutexChannel(const SharedFutexChannel&) = delete;
  SharedFutexChannel& operator=(const SharedFutexChannel&) = delete;

  void ping(uint64_t k) {
    futex_signal(a_side_[kPing], static_cast<uint32_t>(k), /*shared=*/true);
  }
  void wait_ping(uint64_t k) {
    futex_wait_for(b_side_[kPing], static_cast<uint32_t>(k), /*shared=*/true);
  }
  void pong(uint64_t k) {
    futex_signal(b_side_[kPong], static_cast<uint32_t>(k), /*shared=*/true);
  }
  void wait_pong(uint64_t k) {
    futex_wait_for(a_side_[kPong], static_cast<uint32_t>(k), /*shared=*/true);
  }

 private:
  static constexpr size_t kPage = 4096;
  // The two words' indices, a cache line apart.
  static constexpr size_t kPing = 0;
  static constexpr size_t kPong = 64 / sizeof(uint32_t);

  static std::atomic<uint32_t>* map(int fd) {
    void* page =
        mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) std::abort();
    return static_cast<std::atomic<uint32_t>*>(page);
  }

  std::atomic<uint32_t>* a_side_ = nullptr;
  std::atomic<uint32_t>* b_side_ = nullptr;
};

// A host timeline of the cpu device and its import by the same device from
// the exported HOST_TIMELINE_FD: the two share the payload on one page, and
// a waiter on either side is woken, when the other side signals, by its own
// side's watcher thread (DESIGN.md §5a).
class SharedTimeline {
 public:
  SharedTimeline() {
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    check(halo_semaphore_export(original_.get(),
                                HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD,
                                &handle),
          "halo_semaphore_export");
    const halo_status_t status =
        halo_semaphore_import(cpu_device(), &handle, &imported_);
    if (status != HALO_OK) close(handle.fd);  // A failed import leaves it ours.
    check(status, "halo_semaphore_import");
  }
  ~SharedTimeline() { halo_semaphore_release(imported_); }
  SharedTimeline(const SharedTimeline&) = delete;
  SharedTimeline& operator=(const SharedTimeline&) = delete;

  halo_semaphore_t* original() const { return original_.get(); }
  halo_semaphore_t* imported() const { return imported_; }

 private:
  Semaphore original_{0, HALO_SEMAPHORE_FLAG_EXPORTABLE};
  halo_semaphore_t* imported_ = nullptr;
};

// Thread A on the originals, thread B on the imports.
struct HostTimelineChannel {
  SharedTimeline ping_timeline;
  SharedTimeline pong_timeline;

  void ping(uint64_t k) { signal_or_die(ping_timeline.original(), k); }
  void wait_ping(uint64_t k) { wait_or_die(ping_timeline.imported(), k); }
  void pong(uint64_t k) { signal_or_die(pong_timeline.imported(), k); }
  void wait_pong(uint64_t k) { wait_or_die(pong_timeline.original(), k); }
};

}  // namespace

void ping_pong_native_shared_futex(benchmark::State& state) {
  SharedFutexChannel channel;
  run_ping_pong(state, channel);
}

void ping_pong_halo_host_timeline(benchmark::State& state) {
  HostTimelineChannel channel;
  run_ping_pong(state, channel);
}

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
