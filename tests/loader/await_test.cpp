// Coroutine awaits on fences and semaphores (halo/await.hpp) over the cpu
// plugin and the CTS's reference peer: resumption on the executor the test
// chooses (or inline when asked), failures thrown at the co_await,
// cancellation by destroying the coroutine. The executor is a halo::RunLoop
// the test thread drains, blocking on a condition variable: no thread
// blocks in halo and nothing polls; the coroutines are halo::Tasks.
#include <string>
#include <thread>
#include <vector>

#include "halo/await.hpp"
#include "two_plugin_test.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN) && defined(HALO_TEST_PEER_LIBRARY)

class AwaitTest : public TwoPluginTest {
 protected:
  halo::RunLoop executor_;
};

halo::Task await_fence(halo::RunLoop& executor, halo::Fence fence, std::thread::id* resumed_on) {
  co_await halo::reached(fence, executor);
  *resumed_on = std::this_thread::get_id();
}

TEST_F(AwaitTest, ResumesOnTheExecutorOnceEveryPluginsSemaphoreIsReached) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  const halo::Fence fence = halo::Fence::create();
  fence.insert(a, 1).insert(b, 2);
  std::thread::id resumed_on;
  halo::Task task = await_fence(executor_, fence, &resumed_on);
  a.signal(1);
  EXPECT_FALSE(task.done());
  EXPECT_EQ(executor_.pending(), 0u);
  std::thread signaller([&] { b.signal(2); });
  executor_.run_until([&] { return task.done(); });
  signaller.join();
  task.rethrow();
  EXPECT_EQ(resumed_on, std::this_thread::get_id());
}

halo::Task await_with_promise_executor(halo::RunLoop&, halo::Fence fence, bool* finished) {
  co_await fence;
  *finished = true;
}

TEST_F(AwaitTest, CoAwaitAFenceUsesThePromisesExecutor) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  bool finished = false;
  halo::Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
  EXPECT_FALSE(finished);
  semaphore.signal(1);
  executor_.run_until([&] { return task.done(); });
  task.rethrow();
  EXPECT_TRUE(finished);
}

halo::Task await_reached(halo::RunLoop&, halo::Semaphore semaphore, uint64_t value, bool* finished) {
  co_await semaphore.reached(value);
  *finished = true;
}

TEST_F(AwaitTest, CoAwaitASemaphoresValue) {
  const halo::Semaphore semaphore = cpu_.create_semaphore();
  bool finished = false;
  halo::Task task = await_reached(executor_, semaphore, 2, &finished);
  semaphore.signal(1);
  EXPECT_EQ(executor_.pending(), 0u);
  std::thread signaller([&] { semaphore.signal(2); });
  executor_.run_until([&] { return task.done(); });
  signaller.join();
  task.rethrow();
  EXPECT_TRUE(finished);
}

halo::Task await_value(halo::RunLoop& executor, halo::Semaphore semaphore, uint64_t value) {
  co_await halo::semaphore_reached(semaphore, value, executor);
}

// Already reached (or an empty fence): the coroutine goes on without
// suspending, so nothing is posted.
TEST_F(AwaitTest, AReachedValueDoesNotSuspend) {
  const halo::Semaphore semaphore = cpu_.create_semaphore(3);
  halo::Task task = await_value(executor_, semaphore, 2);
  EXPECT_TRUE(task.done());
  task.rethrow();
  std::thread::id resumed_on;
  halo::Task empty = await_fence(executor_, halo::Fence::create(), &resumed_on);
  EXPECT_TRUE(empty.done());
  EXPECT_EQ(executor_.pending(), 0u);
}

halo::Task expect_failure(halo::RunLoop& executor, halo::Fence fence, halo_status_code_t* code,
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
  halo::Task task = expect_failure(executor_, fence, &code, &message);
  std::thread failer([&] { failing.fail(HALO_STATUS_DATA_LOSS, "tile 7 lost"); });
  executor_.run_until([&] { return task.done(); });
  failer.join();
  EXPECT_EQ(code, HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(message, "tile 7 lost");
  // A semaphore failed before the await throws without suspending.
  halo::Task again = expect_failure(executor_, fence, &code, &message);
  EXPECT_TRUE(again.done());
}

halo::Task await_any(halo::RunLoop& executor, std::vector<halo::Fence> fences, size_t* first) {
  *first = co_await halo::when_any(std::move(fences), executor);
}

TEST_F(AwaitTest, WhenAnyReturnsTheFirstFenceReached) {
  const halo::Semaphore slow = cpu_.create_semaphore();
  const halo::Semaphore fast = peer_.create_semaphore();
  size_t first = 99;
  halo::Task task = await_any(executor_, {halo::Fence::at(slow, 1), halo::Fence::at(fast, 1)}, &first);
  std::thread signaller([&] { fast.signal(1); });
  executor_.run_until([&] { return task.done(); });
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
  halo::Task task =
      await_any(executor_, {halo::Fence::at(pending, 1), halo::Fence::at(failing, 1)}, &first);
  failing.fail(HALO_STATUS_ABORTED, "stopped");
  executor_.run_until([&] { return task.done(); });
  EXPECT_THROW(task.rethrow(), halo::Error);
  EXPECT_EQ(first, 99u);
}

// No fences at all would never settle: refused before any coroutine waits.
TEST_F(AwaitTest, WhenAnyOfNothingIsRefused) {
  EXPECT_THROW(halo::when_any(std::vector<halo::Fence>{}, executor_), halo::Error);
}

TEST_F(AwaitTest, WhenAllAwaitsEveryFence) {
  const halo::Semaphore a = cpu_.create_semaphore();
  const halo::Semaphore b = peer_.create_semaphore();
  std::thread::id resumed_on;
  halo::Task task = await_fence(executor_, halo::when_all({halo::Fence::at(a, 1), halo::Fence::at(b, 1)}),
                          &resumed_on);
  b.signal(1);
  EXPECT_EQ(executor_.pending(), 0u);
  a.signal(1);
  executor_.run_until([&] { return task.done(); });
  task.rethrow();
}

// Destroying a suspended coroutine cancels its await: a later signal posts
// nothing and resumes nothing.
TEST_F(AwaitTest, DestroyingTheCoroutineCancelsItsAwait) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  bool finished = false;
  {
    halo::Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
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
    halo::Task task = await_with_promise_executor(executor_, halo::Fence::at(semaphore, 1), &finished);
    semaphore.signal(1);
    EXPECT_EQ(executor_.pending(), 1u);
  }
  executor_.run_until([&] { return executor_.pending() == 0; });
  EXPECT_FALSE(finished);
}

halo::Task await_inline(halo::RunLoop&, halo::Semaphore semaphore, std::thread::id* resumed_on) {
  halo::InlineExecutor inline_executor;
  co_await halo::semaphore_reached(semaphore, 1, inline_executor);
  *resumed_on = std::this_thread::get_id();
}

TEST_F(AwaitTest, InlineExecutorResumesOnTheSignallingThread) {
  const halo::Semaphore semaphore = peer_.create_semaphore();
  std::thread::id resumed_on;
  halo::Task task = await_inline(executor_, semaphore, &resumed_on);
  std::thread::id signaller_id;
  std::thread signaller([&] {
    signaller_id = std::this_thread::get_id();
    semaphore.signal(1);
  });
  signaller.join();
  EXPECT_TRUE(task.done());
  EXPECT_EQ(resumed_on, signaller_id);
}

halo::Task await_each(halo::RunLoop& executor, halo::Semaphore semaphore, uint64_t last,
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
  std::vector<halo::Task> tasks;
  for (int i = 0; i < kCoroutines; ++i) {
    tasks.push_back(await_each(executor_, semaphore, kValues, &seen[i]));
  }
  std::thread signaller([&] {
    for (uint64_t value = 1; value <= kValues; ++value) semaphore.signal(value);
  });
  executor_.run_until([&] {
    for (const halo::Task& task : tasks) {
      if (!task.done()) return false;
    }
    return true;
  });
  signaller.join();
  for (int i = 0; i < kCoroutines; ++i) EXPECT_EQ(seen[i], kValues);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN && HALO_TEST_PEER_LIBRARY

}  // namespace
}  // namespace halo_test
