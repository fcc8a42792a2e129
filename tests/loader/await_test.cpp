// Coroutine awaits on fences and semaphores (halo/await.hpp) over the cpu
// plugin and the CTS's reference peer: resumption on the executor the test
// chooses (or inline when asked), failures thrown at the co_await,
// cancellation by destroying the coroutine. The executor is a queue the
// test thread drains, blocking on a condition variable: no thread blocks
// in halo and nothing polls.
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "halo/await.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN) && defined(HALO_TEST_PEER_LIBRARY)

// Runs posted functions on the thread that calls run_until.
class QueueExecutor {
 public:
  void post(std::function<void()> function) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(function));
    }
    ready_.notify_one();
  }

  // Runs posted functions until |done| holds; false if nothing was posted
  // for a long while first (work was lost: a hang guard, not a timing
  // assertion).
  bool run_until(const std::function<bool()>& done) {
    while (!done()) {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!ready_.wait_for(lock, std::chrono::seconds(30), [&] { return !queue_.empty(); })) {
        return false;
      }
      std::function<void()> function = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      function();
    }
    return true;
  }

  size_t pending() {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
};

// An eager coroutine whose promise names its executor (so that `co_await
// fence` works) and keeps what it ended with. Destroying the Task destroys
// the coroutine, wherever it is suspended.
struct Task {
  struct promise_type {
    template <typename... Args>
    explicit promise_type(QueueExecutor& executor, Args&&...) : executor_(&executor) {}

    Task get_return_object() {
      return Task{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { error = std::current_exception(); }
    QueueExecutor& executor() noexcept { return *executor_; }

    QueueExecutor* executor_;
    std::exception_ptr error;
  };

  Task(Task&& other) noexcept : handle(std::exchange(other.handle, nullptr)) {}
  explicit Task(std::coroutine_handle<promise_type> handle) : handle(handle) {}
  ~Task() {
    if (handle) handle.destroy();
  }
  bool done() const { return handle.done(); }
  void rethrow() const {
    if (handle.promise().error) std::rethrow_exception(handle.promise().error);
  }

  std::coroutine_handle<promise_type> handle;
};

class AwaitTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST, HALO_TEST_PEER_LIBRARY});
    ASSERT_EQ(registry_.driver_count(), 2u) << describe(registry_.plugins());
    cpu_ = first_device_of("cpu");
    peer_ = first_device_of("cts_peer");
  }

  halo::Device first_device_of(const std::string& plugin) const {
    const halo::Driver driver = registry_.find_driver(plugin);
    return driver.create_device(driver.devices().at(0).device_id);
  }

  halo::Registry registry_;
  halo::Device cpu_;
  halo::Device peer_;
  QueueExecutor executor_;
};

Task await_fence(QueueExecutor& executor, halo::Fence fence, std::thread::id* resumed_on) {
  co_await halo::reached(fence, executor);
  *resumed_on = std::this_thread::get_id();
}

TEST_F(AwaitTest, ResumesOnTheExecutorOnceEveryPluginsSemaphoreIsReached) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 1).insert(b, 2);
  std::thread::id resumed_on;
  Task task = await_fence(executor_, fence, &resumed_on);
  a.signal(1);
  EXPECT_FALSE(task.done());
  EXPECT_EQ(executor_.pending(), 0u);
  std::thread signaller([&] { b.signal(2); });
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  signaller.join();
  task.rethrow();
  EXPECT_EQ(resumed_on, std::this_thread::get_id());
}

Task await_with_promise_executor(QueueExecutor&, halo::Fence fence, bool* finished) {
  co_await fence;
  *finished = true;
}

TEST_F(AwaitTest, CoAwaitAFenceUsesThePromisesExecutor) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  bool finished = false;
  Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
  EXPECT_FALSE(finished);
  semaphore.signal(1);
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  task.rethrow();
  EXPECT_TRUE(finished);
}

Task await_value(QueueExecutor& executor, halo::Semaphore semaphore, uint64_t value) {
  co_await halo::semaphore_reached(semaphore, value, executor);
}

// Already reached (or an empty fence): the coroutine goes on without
// suspending, so nothing is posted.
TEST_F(AwaitTest, AReachedValueDoesNotSuspend) {
  const halo::Semaphore semaphore = cpu_.create_semaphore(3);
  Task task = await_value(executor_, semaphore, 2);
  EXPECT_TRUE(task.done());
  task.rethrow();
  std::thread::id resumed_on;
  Task empty = await_fence(executor_, halo::Fence::create(), &resumed_on);
  EXPECT_TRUE(empty.done());
  EXPECT_EQ(executor_.pending(), 0u);
}

Task expect_failure(QueueExecutor& executor, halo::Fence fence, halo_status_code_t* code,
                    std::string* message) {
  try {
    co_await halo::reached(fence, executor);
  } catch (const halo::Error& error) {
    *code = error.code();
    *message = std::string(error.message());
  }
}

TEST_F(AwaitTest, AFailureIsThrownAtTheAwait) {
  const halo::Semaphore pending = cpu_.create_semaphore();
  const halo::Semaphore failing = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(pending, 1).insert(failing, 1);
  halo_status_code_t code = HALO_STATUS_OK;
  std::string message;
  Task task = expect_failure(executor_, fence, &code, &message);
  std::thread failer([&] { failing.fail(HALO_STATUS_DATA_LOSS, "tile 7 lost"); });
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  failer.join();
  EXPECT_EQ(code, HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(message, "tile 7 lost");
  // A semaphore failed before the await throws without suspending.
  Task again = expect_failure(executor_, fence, &code, &message);
  EXPECT_TRUE(again.done());
}

Task await_any(QueueExecutor& executor, std::vector<halo::Fence> fences, size_t* first) {
  *first = co_await halo::when_any(std::move(fences), executor);
}

TEST_F(AwaitTest, WhenAnyReturnsTheFirstFenceReached) {
  const halo::Semaphore slow = cpu_.create_semaphore();
  const halo::Semaphore fast = peer_.create_semaphore();
  size_t first = 99;
  Task task = await_any(executor_, {halo::Fence::at(slow, 1), halo::Fence::at(fast, 1)}, &first);
  std::thread signaller([&] { fast.signal(1); });
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  signaller.join();
  task.rethrow();
  EXPECT_EQ(first, 1u);
  // The other fence's timepoint was cancelled with the await: signalling
  // it now posts nothing.
  slow.signal(1);
  EXPECT_EQ(executor_.pending(), 0u);
}

TEST_F(AwaitTest, WhenAnyThrowsAFailure) {
  const halo::Semaphore pending = cpu_.create_semaphore();
  const halo::Semaphore failing = peer_.create_semaphore();
  size_t first = 99;
  Task task =
      await_any(executor_, {halo::Fence::at(pending, 1), halo::Fence::at(failing, 1)}, &first);
  failing.fail(HALO_STATUS_ABORTED, "stopped");
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  EXPECT_THROW(task.rethrow(), halo::Error);
  EXPECT_EQ(first, 99u);
}

TEST_F(AwaitTest, WhenAllAwaitsEveryFence) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  std::thread::id resumed_on;
  Task task = await_fence(executor_, halo::when_all({halo::Fence::at(a, 1), halo::Fence::at(b, 1)}),
                          &resumed_on);
  b.signal(1);
  EXPECT_EQ(executor_.pending(), 0u);
  a.signal(1);
  ASSERT_TRUE(executor_.run_until([&] { return task.done(); }));
  task.rethrow();
}

// Destroying a suspended coroutine cancels its await: a later signal posts
// nothing and resumes nothing.
TEST_F(AwaitTest, DestroyingTheCoroutineCancelsItsAwait) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  bool finished = false;
  {
    Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
  }
  std::thread signaller([&] { semaphore.signal(1); });
  signaller.join();
  EXPECT_EQ(executor_.pending(), 0u);
  EXPECT_FALSE(finished);
}

// Destroyed after its resumption was posted but before it ran: the posted
// function finds the await abandoned and resumes nothing (ASan would see a
// resumption of the freed frame).
TEST_F(AwaitTest, APostedResumptionOfADestroyedCoroutineIsDropped) {
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  bool finished = false;
  {
    Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
    semaphore.signal(1);
    EXPECT_EQ(executor_.pending(), 1u);
  }
  ASSERT_TRUE(executor_.run_until([&] { return executor_.pending() == 0; }));
  EXPECT_FALSE(finished);
}

Task await_inline(QueueExecutor&, halo::Semaphore semaphore, std::thread::id* resumed_on) {
  halo::InlineExecutor inline_executor;
  co_await halo::semaphore_reached(semaphore, 1, inline_executor);
  *resumed_on = std::this_thread::get_id();
}

TEST_F(AwaitTest, InlineExecutorResumesOnTheSignallingThread) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  std::thread::id resumed_on;
  Task task = await_inline(executor_, semaphore, &resumed_on);
  std::thread::id signaller_id;
  std::thread signaller([&] {
    signaller_id = std::this_thread::get_id();
    semaphore.signal(1);
  });
  signaller.join();
  EXPECT_TRUE(task.done());
  EXPECT_EQ(resumed_on, signaller_id);
}

Task await_each(QueueExecutor& executor, halo::Semaphore semaphore, uint64_t last,
                uint64_t* seen) {
  for (uint64_t value = 1; value <= last; ++value) {
    co_await halo::semaphore_reached(semaphore, value, executor);
    *seen = value;
  }
}

// Many coroutines awaiting values another thread signals, racing their
// registrations against the signals (TSan runs this).
TEST_F(AwaitTest, ManyAwaitsRaceSignals) {
  constexpr uint64_t kValues = 200;
  constexpr int kCoroutines = 8;
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  std::vector<uint64_t> seen(kCoroutines, 0);
  std::vector<Task> tasks;
  for (int i = 0; i < kCoroutines; ++i) {
    tasks.push_back(await_each(executor_, semaphore, kValues, &seen[i]));
  }
  std::thread signaller([&] {
    for (uint64_t value = 1; value <= kValues; ++value) semaphore.signal(value);
  });
  ASSERT_TRUE(executor_.run_until([&] {
    for (const Task& task : tasks) {
      if (!task.done()) return false;
    }
    return true;
  }));
  signaller.join();
  for (int i = 0; i < kCoroutines; ++i) EXPECT_EQ(seen[i], kValues);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN && HALO_TEST_PEER_LIBRARY

}  // namespace
}  // namespace halo_test
