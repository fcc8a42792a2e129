// The cpu device's worker pool on its own: every item runs exactly once
// for many task sizes back to back, items run concurrently on the pool and
// the caller, single items run inline, writes are visible after run, and
// HALO_CPU_WORKERS parsing.
#include "worker_pool.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::cpu {
namespace {

using sdk::testing::fake_host;

struct PoolDeleter {
  void operator()(WorkerPool* pool) const noexcept {
    WorkerPool::destroy(pool);
  }
};
using PoolPtr = std::unique_ptr<WorkerPool, PoolDeleter>;

PoolPtr make_pool(uint32_t threads) {
  return PoolPtr(WorkerPool::create(fake_host(), threads));
}

// Counts how often each item ran and on which threads.
class CountingTask final : public WorkerPool::Task {
 public:
  explicit CountingTask(uint64_t count) : Task(count), runs_(count) {}

  void run(WorkerPool::Claimer& claimer) noexcept override {
    uint64_t index = 0;
    bool joined = false;
    while (claimer.next(&index)) {
      runs_[index].fetch_add(1, std::memory_order_relaxed);
      joined = true;
    }
    if (joined) threads_joined_.fetch_add(1, std::memory_order_relaxed);
  }

  void expect_each_ran_once() const {
    for (size_t i = 0; i < runs_.size(); ++i) {
      ASSERT_EQ(runs_[i].load(std::memory_order_relaxed), 1) << "item " << i;
    }
  }
  int threads_joined() const { return threads_joined_.load(); }

 private:
  std::vector<std::atomic<int>> runs_;
  std::atomic<int> threads_joined_{0};
};

TEST(WorkerPoolTest, EveryItemRunsExactlyOnceForEveryTaskSize) {
  for (uint32_t threads : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE(threads);
    PoolPtr pool = make_pool(threads);
    ASSERT_EQ(pool->thread_count(), threads);
    for (int round = 0; round < 50; ++round) {
      for (uint64_t count : {0u, 1u, 2u, 3u, 7u, 64u, 1000u}) {
        CountingTask task(count);
        pool->run(task);
        task.expect_each_ran_once();
      }
    }
  }
}

// Plain (non-atomic) writes of the items are visible to the caller after
// run returns, with no other synchronisation.
TEST(WorkerPoolTest, ItemWritesAreVisibleAfterRun) {
  class WritingTask final : public WorkerPool::Task {
   public:
    explicit WritingTask(std::vector<uint64_t>* out)
        : Task(out->size()), out_(out) {}
    void run(WorkerPool::Claimer& claimer) noexcept override {
      uint64_t index = 0;
      while (claimer.next(&index)) (*out_)[index] = index * 3 + 1;
    }
    std::vector<uint64_t>* out_;
  };
  PoolPtr pool = make_pool(4);
  for (int round = 0; round < 100; ++round) {
    std::vector<uint64_t> values(257, 0);
    WritingTask task(&values);
    pool->run(task);
    for (uint64_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(values[i], i * 3 + 1);
    }
  }
}

// Records the threads items run on.
class ThreadRecordingTask final : public WorkerPool::Task {
 public:
  explicit ThreadRecordingTask(uint64_t count) : Task(count), ids_(count) {}
  void run(WorkerPool::Claimer& claimer) noexcept override {
    uint64_t index = 0;
    while (claimer.next(&index)) ids_[index] = pthread_self();
  }
  std::vector<pthread_t> ids_;
};

TEST(WorkerPoolTest, OneItemAndThreadlessPoolsRunInlineOnTheCaller) {
  PoolPtr busy = make_pool(4);
  ThreadRecordingTask single(1);
  busy->run(single);
  EXPECT_TRUE(pthread_equal(single.ids_[0], pthread_self()));
  PoolPtr alone = make_pool(1);
  ThreadRecordingTask many(100);
  alone->run(many);
  for (pthread_t id : many.ids_) EXPECT_TRUE(pthread_equal(id, pthread_self()));
}

// |count| items that each wait for all to have started: only possible when
// |count| threads run them at once. Gives up after a generous guard so a
// broken pool fails rather than hangs.
class RendezvousTask final : public WorkerPool::Task {
 public:
  explicit RendezvousTask(uint64_t count) : Task(count) {}
  void run(WorkerPool::Claimer& claimer) noexcept override {
    uint64_t index = 0;
    while (claimer.next(&index)) {
      arrived_.fetch_add(1);
      auto give_up =
          std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (arrived_.load() < count &&
             std::chrono::steady_clock::now() < give_up) {
        std::this_thread::yield();
      }
      if (arrived_.load() >= count) met_.fetch_add(1);
    }
  }
  std::atomic<uint64_t> arrived_{0};
  std::atomic<uint64_t> met_{0};
};

TEST(WorkerPoolTest, ItemsRunConcurrentlyOnEveryThread) {
  PoolPtr pool = make_pool(4);
  for (int round = 0; round < 5; ++round) {
    RendezvousTask task(4);
    pool->run(task);
    EXPECT_EQ(task.met_.load(), 4u);
  }
}

// Pools are created and destroyed while their threads may not have started
// or may be parked, spinning or between tasks.
TEST(WorkerPoolTest, CreateAndDestroyInEveryState) {
  for (int round = 0; round < 30; ++round) {
    PoolPtr pool = make_pool(4);
    if (round % 3 == 0) continue;
    CountingTask task(round * 10);
    pool->run(task);
    task.expect_each_ran_once();
  }
}

class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const char* value) {
    if (value != nullptr) {
      setenv("HALO_CPU_WORKERS", value, 1);
    } else {
      unsetenv("HALO_CPU_WORKERS");
    }
  }
  ~ScopedEnvironment() { unsetenv("HALO_CPU_WORKERS"); }
};

TEST(WorkerPoolTest, ThreadCountComesFromHaloCpuWorkers) {
  const uint32_t fallback = WorkerPool::default_thread_count();
  EXPECT_GE(fallback, 1u);
  struct Case {
    const char* value;
    uint32_t expected;
  };
  const Case cases[] = {
      {nullptr, fallback}, {"", fallback},    {"1", 1},
      {"5", 5},            {"1024", 1024},    {"0", fallback},
      {"1025", fallback},  {"-2", fallback},  {"3 ", fallback},
      {"+3", fallback},    {"two", fallback}, {"99999999999999999999", fallback},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value == nullptr ? "(unset)" : c.value);
    ScopedEnvironment environment(c.value);
    EXPECT_EQ(WorkerPool::configured_thread_count(fake_host()), c.expected);
  }
}

}  // namespace
}  // namespace halo::cpu
