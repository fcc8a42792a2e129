// The fast paths make no allocation (DESIGN.md §4 and §8): a poll (a wait
// with the infinite-past deadline), a query, and a host signal that no one
// waits on. The runner's registry takes every plugin's host memory from its
// counting allocator (counting_allocator.hpp), which counts per thread, so
// each case counts only what the calls it makes allocate on its own thread.
// Each case first proves that the counter sees the plugin at all: a plugin
// that bypassed the host allocator must not pass by counting nothing.
#include <string>
#include <thread>
#include <vector>

#include "counting_allocator.hpp"
#include "cts.hpp"

namespace halo::cts {
namespace {

// Enough calls that a path allocating only now and then is caught, few
// enough that a case takes milliseconds.
constexpr int kCalls = 1000;

// Creates a semaphore with |initial_value| on the device under test, which
// the context releases, and fails unless its creation was counted.
halo_semaphore_t* counted_semaphore(Context& ctx, uint64_t initial_value) {
  ctx.device();  // Created first: only the semaphore is in the window.
  const AllocationWindow window;
  halo_semaphore_t* semaphore = ctx.semaphore(initial_value);
  CTS_ASSERT_MSG(window.allocations() > 0,
                 "creating a semaphore made no allocation through the host "
                 "allocator the runner gave the registry "
                 "(halo_registry_options_t::allocator), so this case cannot "
                 "see the allocations it checks for; a plugin takes the host "
                 "memory of its objects from host->allocator (allocator.h)");
  return semaphore;
}

// Fails when |window| saw an allocation, naming |what| (kCalls of them).
void expect_no_allocation(const AllocationWindow& window, const std::string& what) {
  const uint64_t allocations = window.allocations();
  CTS_ASSERT_MSG(allocations == 0,
                 std::to_string(kCalls) + " " + what + " made " +
                     std::to_string(allocations) + " allocations (and " +
                     std::to_string(window.frees()) +
                     " frees) through the host allocator on the calling "
                     "thread; DESIGN.md §8: signal, poll-wait and query make "
                     "no allocation");
}

// Polls |semaphore| for |value| kCalls times, each returning |expected|.
void poll(halo_semaphore_t* semaphore, uint64_t value, halo_status_code_t expected) {
  for (int i = 0; i < kCalls; ++i) {
    halo_status_t status =
        halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_PAST);
    if (halo_status_code(status) != expected) {
      fail(__FILE__, __LINE__,
           "halo_semaphore_wait(" + std::to_string(value) +
               ", HALO_DEADLINE_INFINITE_PAST) returned " +
               take_status_text(status) + ", expected " +
               halo_status_code_name(expected));
    }
    halo_status_free(status);
  }
}

// Waits with |mode| and a poll deadline on |semaphores| for |values|
// kCalls times, each returning |expected|.
void poll_many(halo_wait_mode_t mode, const std::vector<halo_semaphore_t*>& semaphores,
               const std::vector<uint64_t>& values, halo_status_code_t expected) {
  for (int i = 0; i < kCalls; ++i) {
    halo_status_t status =
        halo_semaphores_wait(mode, semaphores.size(), semaphores.data(),
                             values.data(), HALO_DEADLINE_INFINITE_PAST);
    if (halo_status_code(status) != expected) {
      fail(__FILE__, __LINE__,
           std::string("halo_semaphores_wait(") +
               (mode == HALO_WAIT_MODE_ALL ? "ALL" : "ANY") +
               ", HALO_DEADLINE_INFINITE_PAST) returned " +
               take_status_text(status) + ", expected " +
               halo_status_code_name(expected));
    }
    halo_status_free(status);
  }
}

// Queries |semaphore| kCalls times, each returning OK and |expected|.
void query(halo_semaphore_t* semaphore, uint64_t expected) {
  for (int i = 0; i < kCalls; ++i) {
    uint64_t value = 0;
    CTS_ASSERT_OK(halo_semaphore_query(semaphore, &value));
    CTS_ASSERT_EQ(value, expected);
  }
}

// Signals |semaphore| to |value| when it goes out of scope.
struct SignalOnExit {
  halo_semaphore_t* semaphore;
  uint64_t value;
  ~SignalOnExit() { halo_status_free(halo_semaphore_signal(semaphore, value)); }
};

// Signals |semaphore| kCalls times, from |first| upward by one.
void signal_upward(halo_semaphore_t* semaphore, uint64_t first) {
  for (uint64_t value = first; value < first + kCalls; ++value) {
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, value));
  }
}

}  // namespace

HALO_CTS_CASE("semaphore.poll.no_allocation.pending", kNeedSemaphores,
              "a poll (HALO_DEADLINE_INFINITE_PAST) on a value not reached returns DEADLINE_EXCEEDED and makes no allocation, 1000 times") {
  halo_semaphore_t* semaphore = counted_semaphore(ctx, 3);
  const AllocationWindow window;
  poll(semaphore, 4, HALO_STATUS_DEADLINE_EXCEEDED);
  expect_no_allocation(window, "polls of a pending value");
}

HALO_CTS_CASE("semaphore.poll.no_allocation.reached", kNeedSemaphores,
              "a poll (HALO_DEADLINE_INFINITE_PAST) on a reached value, below and at the payload, returns OK and makes no allocation, 1000 times each") {
  halo_semaphore_t* semaphore = counted_semaphore(ctx, 0);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 7));
  const AllocationWindow window;
  poll(semaphore, 7, HALO_STATUS_OK);
  poll(semaphore, 2, HALO_STATUS_OK);
  expect_no_allocation(window, "polls of a reached value (twice over)");
}

HALO_CTS_CASE("semaphore.wait_many.poll.no_allocation.pending", kNeedSemaphores,
              "ALL and ANY polls over four semaphores of the device, none or not all reached, return DEADLINE_EXCEEDED and make no allocation, 1000 times each") {
  std::vector<halo_semaphore_t*> semaphores;
  for (uint64_t initial : {5, 0, 5, 0}) semaphores.push_back(counted_semaphore(ctx, initial));
  const AllocationWindow window;
  poll_many(HALO_WAIT_MODE_ALL, semaphores, {5, 1, 5, 1}, HALO_STATUS_DEADLINE_EXCEEDED);
  poll_many(HALO_WAIT_MODE_ANY, semaphores, {6, 1, 6, 1}, HALO_STATUS_DEADLINE_EXCEEDED);
  expect_no_allocation(window, "ALL and ANY polls of pending values (each)");
}

HALO_CTS_CASE("semaphore.wait_many.poll.no_allocation.reached", kNeedSemaphores,
              "ALL polls over four reached semaphores of the device and ANY polls with one reached return OK and make no allocation, 1000 times each") {
  std::vector<halo_semaphore_t*> semaphores;
  for (uint64_t initial : {5, 0, 5, 0}) semaphores.push_back(counted_semaphore(ctx, initial));
  const AllocationWindow window;
  poll_many(HALO_WAIT_MODE_ALL, semaphores, {5, 0, 4, 0}, HALO_STATUS_OK);
  poll_many(HALO_WAIT_MODE_ANY, semaphores, {9, 1, 5, 1}, HALO_STATUS_OK);
  expect_no_allocation(window, "ALL and ANY polls of reached values (each)");
}

HALO_CTS_CASE("semaphore.query.no_allocation", kNeedSemaphores,
              "halo_semaphore_query on a fresh semaphore and after host signals returns OK and the payload and makes no allocation, 1000 times each") {
  halo_semaphore_t* semaphore = counted_semaphore(ctx, 2);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 3));
  const AllocationWindow window;
  query(semaphore, 3);
  expect_no_allocation(window, "queries");
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 40));
  const AllocationWindow after_signal;
  query(semaphore, 40);
  expect_no_allocation(after_signal, "queries after a second signal");
}

HALO_CTS_CASE("semaphore.query.no_allocation.queue_waiting", kNeedSemaphores | kNeedQueues,
              "halo_semaphore_query on a semaphore a queued submission waits on, and on the one it will signal, makes no allocation, 1000 times each") {
  halo_semaphore_t* wait = counted_semaphore(ctx, 0);
  halo_semaphore_t* signal = counted_semaphore(ctx, 0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {wait}, {1}, {signal}, {1}));
  {
    // Releases the submission however the checks end, so that a failure is
    // reported as one and not as the hang of the teardown's wait_idle.
    const SignalOnExit release_submission{wait, 1};
    const AllocationWindow window;
    query(wait, 0);
    query(signal, 0);
    expect_no_allocation(window,
                         "queries of semaphores a submission waits on or signals (each)");
  }
  CTS_ASSERT_OK(halo_semaphore_wait(signal, 1, deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("semaphore.signal.no_allocation", kNeedSemaphores,
              "host halo_semaphore_signal on a semaphore nothing waits on makes no allocation, 1000 signals upward by one") {
  halo_semaphore_t* semaphore = counted_semaphore(ctx, 0);
  const AllocationWindow window;
  signal_upward(semaphore, 1);
  expect_no_allocation(window, "host signals");
  uint64_t value = 0;
  CTS_ASSERT_OK(halo_semaphore_query(semaphore, &value));
  CTS_ASSERT_EQ(value, static_cast<uint64_t>(kCalls));
}

HALO_CTS_CASE("semaphore.signal.no_allocation.after_wait", kNeedSemaphores,
              "once a blocking host wait on it has returned, host halo_semaphore_signal on a semaphore nothing waits on any more makes no allocation, 1000 signals") {
  halo_semaphore_t* semaphore = counted_semaphore(ctx, 0);
  halo_status_t waited = nullptr;
  // Whether the thread blocks before the signal or finds 1 reached, its
  // wait is over once it is joined.
  std::thread waiter([&] {
    waited = halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs));
  });
  halo_status_t signalled = halo_semaphore_signal(semaphore, 1);
  waiter.join();
  CTS_ASSERT_OK(signalled);
  CTS_ASSERT_OK(waited);
  const AllocationWindow window;
  signal_upward(semaphore, 2);
  expect_no_allocation(window, "host signals after a wait ended");
}

}  // namespace halo::cts
