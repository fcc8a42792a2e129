// A device's worker pool: persistent threads that share the items of one
// task (the workgroups of a dispatch) with the thread that runs the task.
#ifndef HALO_CPU_WORKER_POOL_HPP_
#define HALO_CPU_WORKER_POOL_HPP_

#include <atomic>
#include <cstdint>
#include <thread>

#include "halo/sdk/host.hpp"
#include "halo/sdk/plugin_threads.hpp"

namespace halo::cpu {

// Runs tasks of independent items on a fixed set of threads.
//
// A task is run by one caller at a time (the device's queue worker). The
// caller publishes the task, wakes the pool threads that sleep, takes items
// itself, and returns once every item has run and no pool thread touches
// the task any more. Items are claimed one at a time from an atomic counter
// of items not yet claimed, so a slow item never holds up the others and
// there is no per-task allocation, thread creation or lock.
//
// Why the task may live on the caller's stack: a pool thread announces
// itself in active_ before it reads the task, and the caller returns only
// after every item was claimed and active_ dropped to zero. A thread that
// announces itself after that reads "no items left" (or the next task,
// which is published before its items are) and never sees a stale task.
//
// Threads park on a futex after a short spin, so a device that does nothing
// costs nothing; the caller skips the wake-up system call when no thread is
// parked.
class WorkerPool {
 public:
  class Claimer;

  // Work made of |count| items that may run in any order, concurrently.
  class Task {
   public:
    explicit Task(uint64_t count) noexcept : count(count) {}
    const uint64_t count;
    // Runs on every thread that joins the task: calls claimer.next() and
    // runs each item it yields until it returns false. Must not throw, and
    // must not wait for another item of the same task (items may also run
    // one after the other on a single thread).
    virtual void run(Claimer& claimer) noexcept = 0;

   protected:
    ~Task() = default;
  };

  // Hands out the items of the current task to one thread.
  class Claimer {
   public:
    // Stores the next unclaimed item in |*index| and returns true, or
    // returns false when every item has been claimed.
    bool next(uint64_t* index) noexcept;

   private:
    friend class WorkerPool;
    Claimer(WorkerPool* pool, uint64_t count) noexcept
        : pool_(pool), count_(count) {}
    // NULL: the items are handed out in order from next_ (no sharing).
    WorkerPool* const pool_;
    const uint64_t count_;
    uint64_t next_ = 0;
  };

  // Returns the number of threads that run a task when HALO_CPU_WORKERS
  // (read with secure_getenv) does not say: the hardware's concurrency, at
  // least 1.
  static uint32_t default_thread_count() noexcept;

  // Returns the number of threads (the caller included) a device's pool
  // uses: HALO_CPU_WORKERS when it is a whole number in [1, kMaxThreads],
  // else the default (logging a warning through |host| when it was set but
  // invalid).
  static uint32_t configured_thread_count(sdk::Host host) noexcept;

  static constexpr uint32_t kMaxThreads = 1024;

  // Creates a pool whose tasks run on |thread_count| threads: the caller of
  // run plus thread_count - 1 pool threads. Throws std::bad_alloc or
  // std::system_error (after stopping the threads already started).
  static WorkerPool* create(sdk::Host host, uint32_t thread_count);
  // Stops the pool threads, waits until they have ended, and frees the
  // pool. No task may run.
  // Accepts NULL.
  static void destroy(WorkerPool* pool) noexcept;

  // Runs every item of |task| on the pool and the calling thread, and
  // returns when all have run. A task of one item, or a pool without
  // threads, runs inline without waking anybody. One caller at a time.
  void run(Task& task) noexcept;

  // The number of threads that run a task, the caller included.
  uint32_t thread_count() const noexcept {
    return helper_count_ + 1;
  }

  // Use create; public only so that the host allocator can construct it.
  explicit WorkerPool(sdk::Host host) noexcept;

 private:
  bool claim(uint64_t count, uint64_t* index) noexcept;
  void thread_main() noexcept;
  // Waits (spinning briefly, then parked) until epoch_ differs from |seen|;
  // returns the new epoch.
  uint32_t await_epoch(uint32_t seen) noexcept;
  void join_task() noexcept;
  void await_helpers() noexcept;
  void stop() noexcept;

  sdk::Host host_;
  // The task being run; written by the caller only while active_ is zero
  // and nothing is left to claim.
  std::atomic<Task*> task_{nullptr};
  // Items of the current task not yet claimed.
  std::atomic<uint64_t> unclaimed_{0};
  // Pool threads inside the current task (futex word of the caller).
  std::atomic<uint32_t> active_{0};
  // Set while the caller is parked on active_.
  std::atomic<uint32_t> caller_waiting_{0};
  // Bumped for each task and on stop (futex word of the pool threads).
  std::atomic<uint32_t> epoch_{0};
  // Pool threads parked on epoch_.
  std::atomic<uint32_t> parked_{0};
  std::atomic<bool> stopping_{false};
  sdk::PluginThreads threads_;
  uint32_t helper_count_ = 0;
};

}  // namespace halo::cpu

#endif  // HALO_CPU_WORKER_POOL_HPP_
