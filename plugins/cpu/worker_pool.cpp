// The worker pool: thread start-up, the claim counter, parking and the
// caller's wait for its helpers (see worker_pool.hpp for the protocol).
#include "worker_pool.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "halo/sdk/futex.hpp"

namespace halo::cpu {
namespace {

// Spins before parking: back-to-back dispatches of one command buffer find
// the threads awake, while an idle pool soon stops using the CPU. Kept
// short because the machine may be shared.
constexpr int kSpinIterations = 512;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Parses |text| as a whole decimal number in [1, max]; false otherwise.
bool parse_thread_count(const char* text, uint32_t max, uint32_t* out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value == 0 || value > max) return false;
  *out = static_cast<uint32_t>(value);
  return true;
}

}  // namespace

bool WorkerPool::Claimer::next(uint64_t* index) noexcept {
  if (pool_ != nullptr) return pool_->claim(count_, index);
  if (next_ == count_) return false;
  *index = next_++;
  return true;
}

uint32_t WorkerPool::default_thread_count() noexcept {
  unsigned hardware = std::thread::hardware_concurrency();
  if (hardware == 0) return 1;
  return hardware > kMaxThreads ? kMaxThreads : hardware;
}

uint32_t WorkerPool::configured_thread_count(sdk::Host host) noexcept {
  uint32_t fallback = default_thread_count();
  const char* text = secure_getenv("HALO_CPU_WORKERS");
  if (text == nullptr || *text == '\0') return fallback;
  uint32_t count = 0;
  if (parse_thread_count(text, kMaxThreads, &count)) return count;
  host.log(HALO_LOG_LEVEL_WARN,
           "HALO_CPU_WORKERS='%.64s' is not a whole number from 1 to %u; "
           "using %u worker threads",
           text, kMaxThreads, fallback);
  return fallback;
}

WorkerPool::WorkerPool(sdk::Host host) noexcept : host_(host) {}

WorkerPool* WorkerPool::create(sdk::Host host, uint32_t thread_count) {
  WorkerPool* pool = host.make<WorkerPool>(host);
  try {
    uint32_t helpers = thread_count > 0 ? thread_count - 1 : 0;
    for (uint32_t i = 0; i < helpers; ++i) {
      char name[16];
      std::snprintf(name, sizeof(name), "halo-cpu-%u", (i + 1) % 10000);
      pool->threads_.start(name, [pool] { pool->thread_main(); });
      ++pool->helper_count_;
    }
  } catch (...) {
    destroy(pool);
    throw;
  }
  return pool;
}

void WorkerPool::destroy(WorkerPool* pool) noexcept {
  if (pool == nullptr) return;
  pool->stop();
  sdk::Host host = pool->host_;
  host.destroy(pool);
}

void WorkerPool::stop() noexcept {
  stopping_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  sdk::futex_wake_all(&epoch_);
  threads_.await_exits();
}

void WorkerPool::run(Task& task) noexcept {
  if (task.count == 0) return;
  if (task.count == 1 || helper_count_ == 0) {
    Claimer inline_claimer(nullptr, task.count);
    task.run(inline_claimer);
    return;
  }
  // Publish the task before its items: a thread that sees items sees the
  // task (see the header for why no stale task is ever read).
  task_.store(&task, std::memory_order_release);
  unclaimed_.store(task.count, std::memory_order_seq_cst);
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (parked_.load(std::memory_order_seq_cst) != 0) {
    sdk::futex_wake_all(&epoch_);
  }
  Claimer claimer(this, task.count);
  task.run(claimer);
  await_helpers();
}

bool WorkerPool::claim(uint64_t count, uint64_t* index) noexcept {
  uint64_t unclaimed = unclaimed_.load(std::memory_order_relaxed);
  while (unclaimed != 0) {
    if (unclaimed_.compare_exchange_weak(unclaimed, unclaimed - 1,
                                         std::memory_order_acq_rel,
                                         std::memory_order_relaxed)) {
      *index = count - unclaimed;
      return true;
    }
  }
  return false;
}

void WorkerPool::await_helpers() noexcept {
  // Every item is claimed (our claimer ran dry); the helpers still inside
  // the task finish theirs and leave. Acquire: their writes are ours now.
  for (int spin = 0; spin < kSpinIterations; ++spin) {
    if (active_.load(std::memory_order_seq_cst) == 0) return;
    cpu_relax();
  }
  caller_waiting_.store(1, std::memory_order_seq_cst);
  for (;;) {
    uint32_t active = active_.load(std::memory_order_seq_cst);
    if (active == 0) break;
    sdk::futex_wait(&active_, active, HALO_DEADLINE_INFINITE_FUTURE);
  }
  caller_waiting_.store(0, std::memory_order_relaxed);
}

void WorkerPool::join_task() noexcept {
  // Announce first, then look: the caller cannot finish (and retire the
  // task) while we are counted.
  active_.fetch_add(1, std::memory_order_seq_cst);
  if (unclaimed_.load(std::memory_order_seq_cst) != 0) {
    Task* task = task_.load(std::memory_order_acquire);
    Claimer claimer(this, task->count);
    task->run(claimer);
  }
  // Release: our items' writes reach the caller. The caller parks only
  // after announcing itself, so either it sees zero or we see it waiting.
  if (active_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      caller_waiting_.load(std::memory_order_seq_cst) != 0) {
    sdk::futex_wake_all(&active_);
  }
}

uint32_t WorkerPool::await_epoch(uint32_t seen) noexcept {
  for (int spin = 0; spin < kSpinIterations; ++spin) {
    uint32_t epoch = epoch_.load(std::memory_order_acquire);
    if (epoch != seen) return epoch;
    cpu_relax();
  }
  for (;;) {
    // Dekker pair with run(): either it sees us parked, or we see its epoch.
    parked_.fetch_add(1, std::memory_order_seq_cst);
    uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
    if (epoch == seen) {
      sdk::futex_wait(&epoch_, seen, HALO_DEADLINE_INFINITE_FUTURE);
      epoch = epoch_.load(std::memory_order_acquire);
    }
    parked_.fetch_sub(1, std::memory_order_relaxed);
    if (epoch != seen) return epoch;
  }
}

void WorkerPool::thread_main() noexcept {
  // The epoch at construction: nothing can have run before create returned,
  // but stop may already have bumped it (a failed create), and then this
  // thread must not park.
  uint32_t seen = 0;
  for (;;) {
    seen = await_epoch(seen);
    if (stopping_.load(std::memory_order_acquire)) return;
    join_task();
  }
}

}  // namespace halo::cpu
