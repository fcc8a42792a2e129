// fence.wait_handle.*: the fd of a fence's wait handle (halo/fence.h,
// DESIGN.md §4a) becomes readable once the timepoints it was made for are
// reached or one fails, over the plugin under test's semaphores and queue
// work; destroying a handle cancels it. interop.fence.* mixes in a second
// plugin's semaphore. "Not yet" is a poll with timeout 0; "now" a poll with a
// generous timeout.
#include "fence_helpers.hpp"

namespace {

using namespace halo::cts;
using namespace halo::cts::fence;

// --- wait handles -------------------------------------------------------------------

HALO_CTS_CASE("fence.wait_handle.fd", kNeedNothing,
              "a wait handle's fd is non-blocking and close-on-exec, the same at every call, and differs between two live handles") {
  FenceRef fence = make_fence();
  WaitHandleRef first = make_wait_handle(fence.get());
  WaitHandleRef second = make_wait_handle(fence.get());
  const int fd = halo_wait_handle_fd(first.get());
  CTS_ASSERT(fd >= 0);
  CTS_ASSERT_EQ(halo_wait_handle_fd(first.get()), fd);
  CTS_ASSERT(halo_wait_handle_fd(second.get()) >= 0);
  CTS_ASSERT(halo_wait_handle_fd(second.get()) != fd);
  const int status_flags = fcntl(fd, F_GETFL);
  const int fd_flags = fcntl(fd, F_GETFD);
  CTS_ASSERT_MSG(status_flags >= 0 && fd_flags >= 0, std::strerror(errno));
  CTS_ASSERT((status_flags & O_NONBLOCK) != 0);
  CTS_ASSERT((fd_flags & FD_CLOEXEC) != 0);
}

HALO_CTS_CASE("fence.wait_handle.settled", kNeedSemaphores,
              "a handle for a fence already reached, or with a member already failed, is readable and ready (with the failure) at once") {
  halo_semaphore_t* past = ctx.semaphore(5);
  halo_semaphore_t* pending = ctx.semaphore(0);
  halo_semaphore_t* failed = ctx.semaphore(0);
  FenceRef reached = make_fence({{past, 3}, {pending, 0}});
  WaitHandleRef reached_handle = make_wait_handle(reached.get());
  CTS_ASSERT(readable(reached_handle.get(), 0));
  CTS_ASSERT_READY(reached_handle.get(), true);
  CTS_ASSERT_OK(halo_semaphore_fail(failed, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  FenceRef broken = make_fence({{pending, 1}, {failed, 1}});
  WaitHandleRef broken_handle = make_wait_handle(broken.get());
  CTS_ASSERT(readable(broken_handle.get(), 0));
  CTS_ASSERT_READY_FAILED(broken_handle.get(), HALO_STATUS_DATA_LOSS, kFailureMessage);
}

HALO_CTS_CASE("fence.wait_handle.reached", kNeedSemaphores,
              "a handle's fd is not readable and its status not ready while any timepoint is pending; once the host signals the last, the fd is readable, stays so, and the status is ready and OK") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}, {t, 2}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT(!readable(handle.get(), 0));
  CTS_ASSERT_READY(handle.get(), false);
  CTS_ASSERT_OK(halo_semaphore_signal(s, 1));
  CTS_ASSERT_OK(halo_semaphore_signal(t, 1));
  CTS_ASSERT(!readable(handle.get(), 0));
  CTS_ASSERT_READY(handle.get(), false);
  CTS_ASSERT_OK(halo_semaphore_signal(t, 2));
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY(handle.get(), true);
  CTS_ASSERT(readable(handle.get(), 0));  // libhalo never resets the counter.
  CTS_ASSERT_READY(handle.get(), true);
}

HALO_CTS_CASE("fence.wait_handle.failed", kNeedSemaphores,
              "failing one member while the other is pending makes the fd readable and the status ready with the failure's code and message") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}, {t, 1}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT(!readable(handle.get(), 0));
  CTS_ASSERT_OK(halo_semaphore_fail(t, make_status(HALO_STATUS_UNAVAILABLE, kFailureMessage)));
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY_FAILED(handle.get(), HALO_STATUS_UNAVAILABLE, kFailureMessage);
}

HALO_CTS_CASE("fence.wait_handle.snapshot", kNeedSemaphores,
              "a handle waits for the timepoints its fence held when it was made: one inserted or raised later does not hold it back") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT_OK(halo_fence_insert(fence.get(), t, 1));
  CTS_ASSERT_OK(halo_fence_insert(fence.get(), s, 2));
  CTS_ASSERT_OK(halo_semaphore_signal(s, 1));
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY(handle.get(), true);
  CTS_ASSERT_REACHED(fence.get(), false);
}

HALO_CTS_CASE("fence.wait_handle.outlives_fence", kNeedSemaphores,
              "handles outlive their fences and keep their semaphores: one becomes ready on a signal, one holding a semaphore's last reference is destroyed pending") {
  SemaphoreRef reached = new_semaphore(ctx);
  SemaphoreRef pending = new_semaphore(ctx);
  WaitHandleRef ready_handle, pending_handle;
  {
    FenceRef a = make_fence({{reached.get(), 1}});
    FenceRef b = make_fence({{pending.get(), 1}});
    ready_handle = make_wait_handle(a.get());
    pending_handle = make_wait_handle(b.get());
  }
  CTS_ASSERT(!readable(ready_handle.get(), 0));
  CTS_ASSERT_OK(halo_semaphore_signal(reached.get(), 1));
  CTS_ASSERT(readable(ready_handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY(ready_handle.get(), true);
  pending.reset();  // Only the handle keeps it now; destroy cancels on it.
  CTS_ASSERT_READY(pending_handle.get(), false);
  pending_handle.reset();
}

HALO_CTS_CASE("fence.wait_handle.destroy_pending", kNeedSemaphores,
              "handles destroyed while pending close their fds and are never written after: eventfds reusing those numbers stay unreadable when the semaphores are signalled and failed") {
  halo_semaphore_t* s = ctx.semaphore(0);
  halo_semaphore_t* t = ctx.semaphore(0);
  FenceRef fence = make_fence({{s, 1}, {t, 1}});
  WaitHandleRef witness = make_wait_handle(fence.get());
  std::vector<int> closed;
  {
    std::vector<WaitHandleRef> doomed;
    for (int i = 0; i < 8; ++i) {
      doomed.push_back(make_wait_handle(fence.get()));
      closed.push_back(halo_wait_handle_fd(doomed.back().get()));
    }
  }
  // The lowest free numbers are the closed ones: a late callback of a
  // destroyed handle would write to one of these.
  OwnFds decoys;
  for (size_t i = 0; i < closed.size(); ++i) decoys.open_eventfd();
  for (int fd : closed) {
    const bool reused = std::count(decoys.fds().begin(), decoys.fds().end(), fd) != 0;
    CTS_ASSERT_MSG(reused || fcntl(fd, F_GETFD) < 0,
                   "fd " + std::to_string(fd) + " of a destroyed handle is still open");
  }
  CTS_ASSERT_OK(halo_semaphore_signal(s, 1));
  CTS_ASSERT_OK(halo_semaphore_fail(t, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT(readable(witness.get(), kGenerousPollMs));
  CTS_ASSERT_READY_FAILED(witness.get(), HALO_STATUS_ABORTED, kFailureMessage);
  for (int fd : decoys.fds()) {
    CTS_ASSERT_MSG(!fd_readable(fd, 0), "eventfd " + std::to_string(fd) +
                                            " was written by a destroyed handle");
  }
}

HALO_CTS_CASE("fence.wait_handle.destroy_racing_signal", kNeedQueues,
              "200 times: a handle destroyed while the plugin's queue signals its semaphore is safe, and a second handle on the same fence still becomes ready") {
  for (int round = 0; round < 200; ++round) {
    SemaphoreRef semaphore = new_semaphore(ctx);
    FenceRef fence = make_fence({{semaphore.get(), 1}});
    WaitHandleRef doomed = make_wait_handle(fence.get());
    WaitHandleRef witness = make_wait_handle(fence.get());
    CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore.get()}, {1}));
    doomed.reset();  // Races the plugin's signal on its own thread.
    CTS_ASSERT(readable(witness.get(), kGenerousPollMs));
    CTS_ASSERT_READY(witness.get(), true);
  }
}

HALO_CTS_CASE("fence.wait_handle.from_queue_work", kNeedQueues,
              "a handle over a semaphore that gated queue work signals is not readable before the gate opens and readable and ready after") {
  Gate gate(ctx.device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate.get()}, {1}, {out}, {1}));
  FenceRef fence = make_fence({{out, 1}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT(!readable(handle.get(), 0));
  CTS_ASSERT_READY(handle.get(), false);
  gate.open();
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY(handle.get(), true);
}

HALO_CTS_CASE("fence.wait_handle.from_queue_failure", kNeedQueues,
              "a handle over a semaphore that gated queue work signals becomes readable with the gate's failure when the gate fails") {
  Gate gate(ctx.device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate.get()}, {1}, {out}, {1}));
  FenceRef fence = make_fence({{out, 1}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  CTS_ASSERT(!readable(handle.get(), 0));
  gate.fail(HALO_STATUS_CANCELLED, kFailureMessage);
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY_FAILED(handle.get(), HALO_STATUS_CANCELLED, kFailureMessage);
}

// --- two plugins ----------------------------------------------------------------------

HALO_CTS_CASE("interop.fence.mixed_plugins", kNeedSemaphores | kNeedSecondPlugin,
              "a fence over one semaphore of each plugin: query, wait and its wait handle are pending until both are signalled, then reached, OK and ready") {
  halo_semaphore_t* own = ctx.semaphore(0);
  halo_semaphore_t* foreign = ctx.semaphore(0, ctx.foreign_device());
  FenceRef fence = make_fence({{own, 1}, {foreign, 2}});
  WaitHandleRef handle = make_wait_handle(fence.get());
  for (int step = 0; step < 2; ++step) {
    CTS_ASSERT_REACHED(fence.get(), false);
    CTS_ASSERT_STATUS(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_PAST),
                      HALO_STATUS_DEADLINE_EXCEEDED);
    CTS_ASSERT(!readable(handle.get(), 0));
    CTS_ASSERT_READY(handle.get(), false);
    // The foreign one first, then the own one.
    CTS_ASSERT_OK(step == 0 ? halo_semaphore_signal(foreign, 2)
                            : halo_semaphore_signal(own, 1));
  }
  CTS_ASSERT(readable(handle.get(), kGenerousPollMs));
  CTS_ASSERT_READY(handle.get(), true);
  CTS_ASSERT_REACHED(fence.get(), true);
  CTS_ASSERT_OK(halo_fence_wait(fence.get(), HALO_DEADLINE_INFINITE_FUTURE));
}

}  // namespace
