// fence.await.*: C++20 coroutines awaiting the plugin under test's
// semaphores through halo/await.hpp (DESIGN.md §4a): resumed on a run loop
// once reached, a failure thrown at the co_await, queue work awaited, and a
// destroyed coroutine's await cancelled. interop.fence.await_mixed awaits
// semaphores of two plugins. The run loop blocks on its queue; a
// resumption that never comes is the case's timeout.
#include <string>
#include <thread>

#include "case_helpers.hpp"
#include "halo/await.hpp"

namespace {

using namespace halo::cts;

constexpr char kAwaitFailure[] = "cts: awaited failure 3b9d";

halo::Semaphore wrap(halo_semaphore_t* semaphore) {
  return halo::Semaphore(halo::retain_ref, semaphore);
}

halo::Task await_fence(halo::RunLoop& loop, halo::Fence fence, bool* resumed) {
  co_await halo::reached(fence, loop);
  *resumed = true;
}

// |loop| is where the Task resumes: `co_await fence` takes it from the
// promise.
halo::Task await_failure([[maybe_unused]] halo::RunLoop& loop, halo::Fence fence,
                         halo_status_code_t* code, std::string* message) {
  try {
    co_await fence;
  } catch (const halo::Error& error) {
    *code = error.code();
    *message = std::string(error.message());
  }
}

HALO_CTS_CASE("fence.await.reached", kNeedSemaphores,
              "a coroutine awaiting a fence of two semaphores is not resumed while one is pending, and is resumed on the run loop once another thread signals it") {
  halo::Semaphore first = wrap(ctx.semaphore(0));
  halo::Semaphore second = wrap(ctx.semaphore(0));
  halo::Fence fence = halo::Fence::create();
  fence.insert(first, 1).insert(second, 2);
  halo::RunLoop loop;
  bool resumed = false;
  halo::Task task = await_fence(loop, fence, &resumed);
  first.signal(1);
  CTS_ASSERT_MSG(!resumed && loop.pending() == 0,
                 "the coroutine was resumed with a timepoint still pending");
  std::thread signaller([&] { second.signal(2); });
  loop.run_until([&] { return task.done(); });
  signaller.join();
  task.rethrow();
  CTS_ASSERT(resumed);
}

HALO_CTS_CASE("fence.await.failure", kNeedSemaphores,
              "a semaphore failed by another thread while a coroutine awaits it throws halo::Error at the co_await with its code and message; one failed already throws without suspending") {
  halo::Semaphore pending = wrap(ctx.semaphore(0));
  halo::Semaphore failing = wrap(ctx.semaphore(0));
  halo::Fence fence = halo::Fence::create();
  fence.insert(pending, 1).insert(failing, 1);
  halo::RunLoop loop;
  halo_status_code_t code = HALO_STATUS_OK;
  std::string message;
  halo::Task task = await_failure(loop, fence, &code, &message);
  std::thread failer([&] { failing.fail(HALO_STATUS_DATA_LOSS, kAwaitFailure); });
  loop.run_until([&] { return task.done(); });
  failer.join();
  CTS_ASSERT_MSG(code == HALO_STATUS_DATA_LOSS && message == kAwaitFailure,
                 "the co_await threw " + std::string(halo_status_code_name(code)) + " \"" +
                     message + "\", expected DATA_LOSS \"" + kAwaitFailure + "\"");
  code = HALO_STATUS_OK;
  halo::Task again = await_failure(loop, fence, &code, &message);
  CTS_ASSERT_MSG(again.done() && code == HALO_STATUS_DATA_LOSS,
                 "awaiting an already failed semaphore did not throw at once");
}

HALO_CTS_CASE("fence.await.queue_work", kNeedQueues,
              "a coroutine awaiting the signal of a queued submission gated by the host is resumed only after the gate opens and the work signals") {
  Gate gate(ctx.device());
  halo::Semaphore done = wrap(ctx.semaphore(0));
  CTS_ASSERT_OK(submit(ctx.device(), {}, {gate.get()}, {1}, {done.get()}, {1}));
  halo::RunLoop loop;
  bool resumed = false;
  halo::Task task = await_fence(loop, halo::Fence::at(done, 1), &resumed);
  CTS_ASSERT_MSG(!task.done(), "the coroutine went on before the gated work signalled");
  gate.open();
  loop.run_until([&] { return task.done(); });
  task.rethrow();
  CTS_ASSERT(resumed);
}

HALO_CTS_CASE("fence.await.destroyed_while_waiting", kNeedSemaphores,
              "destroying a coroutine suspended in an await cancels it: signalling the semaphore afterwards, from another thread, posts no resumption") {
  halo::Semaphore semaphore = wrap(ctx.semaphore(0));
  halo::RunLoop loop;
  bool resumed = false;
  {
    halo::Task task = await_fence(loop, halo::Fence::at(semaphore, 1), &resumed);
    CTS_ASSERT(!task.done());
  }
  std::thread signaller([&] { semaphore.signal(1); });
  signaller.join();
  CTS_ASSERT_MSG(loop.pending() == 0 && !resumed,
                 "a destroyed coroutine's await still posted a resumption");
}

halo::Task await_any(halo::RunLoop& loop, std::vector<halo::Fence> fences, size_t* first) {
  *first = co_await halo::when_any(std::move(fences), loop);
}

HALO_CTS_CASE("interop.fence.await_mixed", kNeedSemaphores | kNeedSecondPlugin,
              "coroutines await semaphores of both plugins: when_all resumes only after both are signalled, when_any with the index of the one signalled") {
  halo::Semaphore own = wrap(ctx.semaphore(0));
  halo::Semaphore foreign = wrap(ctx.semaphore(0, ctx.foreign_device()));
  halo::RunLoop loop;
  bool resumed = false;
  halo::Task all = await_fence(
      loop, halo::when_all({halo::Fence::at(own, 1), halo::Fence::at(foreign, 1)}), &resumed);
  size_t first = 99;
  halo::Task any = await_any(loop, {halo::Fence::at(own, 2), halo::Fence::at(foreign, 2)}, &first);
  foreign.signal(1);
  CTS_ASSERT_MSG(!all.done() && loop.pending() == 0,
                 "when_all was resumed with the device's semaphore pending");
  own.signal(1);
  loop.run_until([&] { return all.done(); });
  all.rethrow();
  std::thread signaller([&] { foreign.signal(2); });
  loop.run_until([&] { return any.done(); });
  signaller.join();
  any.rethrow();
  CTS_ASSERT_MSG(first == 1, "when_any returned " + std::to_string(first) +
                                 ", expected 1 (the other plugin's fence)");
}

}  // namespace
