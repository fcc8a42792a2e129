// semaphore.threads.*: waits, signals and failures across threads
// (DESIGN.md §4). No sleeps synchronise anything and nothing asserts a
// duration: every blocking wait has a kGenerousMs deadline, so a plugin that
// loses a wake-up fails with DEADLINE_EXCEEDED instead of hanging. Threads
// never throw; they record what they saw and the case checks it after join.
#include <mutex>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

// What helper threads saw: the first unexpected status, as text.
class Errors {
 public:
  // Records |status| (taking it) when it is not OK; |what| says where.
  void check_ok(halo_status_t status, const std::string& what) {
    if (status != nullptr) add(what + " returned " + take_status_text(status));
  }
  void add(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_.empty()) first_ = error;
    ++count_;
  }
  // Fails the case with the first recorded error.
  void assert_none(const char* file, int line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_ != 0) {
      fail(file, line, to_text(count_) + " thread error(s); first: " + first_);
    }
  }

 private:
  std::mutex mutex_;
  std::string first_;
  size_t count_ = 0;
};

#define ASSERT_NO_THREAD_ERRORS(errors) (errors).assert_none(__FILE__, __LINE__)

constexpr char kFailureMessage[] = "cts: failure seen by a waiter 0b7e";

HALO_CTS_CASE("semaphore.threads.wait_then_signal", kNeedSemaphores,
              "a thread blocked in wait returns OK when another thread signals the value") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  std::atomic<bool> started{false};
  {
    ThreadGroup threads;
    threads.start([&] {
      started.store(true);
      errors.check_ok(halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs)),
                      "halo_semaphore_wait(1)");
    });
    CTS_ASSERT(spin_until([&] { return started.load(); }));
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1));
  }
  ASSERT_NO_THREAD_ERRORS(errors);
}

HALO_CTS_CASE("semaphore.threads.ping_pong", kNeedSemaphores,
              "two threads make 1,000 round trips through two semaphores, each wait OK, values exact") {
  halo_semaphore_t* ping = ctx.semaphore(0);
  halo_semaphore_t* pong = ctx.semaphore(0);
  constexpr uint64_t kRounds = 1000;
  Errors errors;
  {
    ThreadGroup threads;
    threads.start([&] {
      for (uint64_t i = 1; i <= kRounds; ++i) {
        halo_status_t status = halo_semaphore_wait(ping, i, deadline_in_ms(kGenerousMs));
        if (status != nullptr) {
          errors.check_ok(status, "pong thread: wait(ping, " + to_text(i) + ")");
          return;
        }
        errors.check_ok(halo_semaphore_signal(pong, i), "signal(pong)");
      }
    });
    for (uint64_t i = 1; i <= kRounds; ++i) {
      CTS_ASSERT_OK(halo_semaphore_signal(ping, i));
      CTS_ASSERT_OK(halo_semaphore_wait(pong, i, deadline_in_ms(kGenerousMs)));
      CTS_ASSERT_EQ(value_of(pong), i);  // Only ever signalled to i.
    }
  }
  ASSERT_NO_THREAD_ERRORS(errors);
  CTS_ASSERT_EQ(value_of(ping), kRounds);
  CTS_ASSERT_EQ(value_of(pong), kRounds);
}

HALO_CTS_CASE("semaphore.threads.many_waiters_one_value", kNeedSemaphores,
              "16 threads waiting for the same value all return OK after one signal") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  std::atomic<int> started{0}, woken{0};
  {
    ThreadGroup threads;
    for (int i = 0; i < 16; ++i) {
      threads.start([&] {
        started.fetch_add(1);
        errors.check_ok(halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs)),
                        "halo_semaphore_wait(1)");
        woken.fetch_add(1);
      });
    }
    CTS_ASSERT(spin_until([&] { return started.load() == 16; }));
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1));
  }
  ASSERT_NO_THREAD_ERRORS(errors);
  CTS_ASSERT_EQ(woken.load(), 16);
}

HALO_CTS_CASE("semaphore.threads.waiters_different_values", kNeedSemaphores,
              "waiters for 1..N wake once their value is signalled, never before the signal of their value") {
  std::mt19937_64 rng = make_rng(ctx);
  const uint64_t count = 4 + rng() % 13;  // 4 … 16 waiters.
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  // The highest value whose signal has begun: a waiter for k may only return
  // once it is >= k (the signal happens after the store).
  std::atomic<uint64_t> signal_started{0};
  std::atomic<uint64_t> started{0};
  {
    ThreadGroup threads;
    for (uint64_t k = 1; k <= count; ++k) {
      threads.start([&, k] {
        started.fetch_add(1);
        halo_status_t status = halo_semaphore_wait(semaphore, k, deadline_in_ms(kGenerousMs));
        const uint64_t seen = signal_started.load();
        if (status != nullptr) {
          errors.check_ok(status, "wait(" + to_text(k) + ")");
        } else if (seen < k) {
          errors.add("the waiter for " + to_text(k) +
                     " returned before the signal of " + to_text(k) +
                     " (only " + to_text(seen) + " was signalled)");
        }
      });
    }
    CTS_ASSERT(spin_until([&] { return started.load() == count; }));
    for (uint64_t k = 1; k <= count; ++k) {
      signal_started.store(k);
      CTS_ASSERT_OK(halo_semaphore_signal(semaphore, k));
    }
  }
  ASSERT_NO_THREAD_ERRORS(errors);
}

HALO_CTS_CASE("semaphore.threads.signal_beyond", kNeedSemaphores,
              "a waiter for 5 returns OK when another thread signals straight to 100") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  std::atomic<bool> started{false};
  {
    ThreadGroup threads;
    threads.start([&] {
      started.store(true);
      errors.check_ok(halo_semaphore_wait(semaphore, 5, deadline_in_ms(kGenerousMs)),
                      "halo_semaphore_wait(5)");
    });
    CTS_ASSERT(spin_until([&] { return started.load(); }));
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 100));
  }
  ASSERT_NO_THREAD_ERRORS(errors);
}

HALO_CTS_CASE("semaphore.threads.wait_then_fail", kNeedSemaphores,
              "4 threads blocked in wait (single and ALL/ANY lists) get the failure's code and message when it fails") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  halo_semaphore_t* other = ctx.semaphore(0);
  Errors errors;
  std::atomic<int> started{0};
  auto expect_failure = [&](halo_status_t status, const char* what) {
    if (halo_status_code(status) != HALO_STATUS_ABORTED ||
        std::string(halo_status_message(status)) != kFailureMessage) {
      errors.add(std::string(what) + " returned " + take_status_text(status) +
                 ", expected ABORTED: " + kFailureMessage);
    } else {
      halo_status_free(status);
    }
  };
  {
    ThreadGroup threads;
    for (int i = 0; i < 2; ++i) {
      threads.start([&] {
        started.fetch_add(1);
        expect_failure(halo_semaphore_wait(semaphore, 1, deadline_in_ms(kGenerousMs)),
                       "halo_semaphore_wait");
      });
    }
    for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
      threads.start([&, mode] {
        halo_semaphore_t* list[] = {other, semaphore};
        const uint64_t values[] = {1, 1};
        started.fetch_add(1);
        expect_failure(halo_semaphores_wait(mode, 2, list, values,
                                            deadline_in_ms(kGenerousMs)),
                       mode == HALO_WAIT_MODE_ALL ? "halo_semaphores_wait(ALL)"
                                                  : "halo_semaphores_wait(ANY)");
      });
    }
    CTS_ASSERT(spin_until([&] { return started.load() == 4; }));
    CTS_ASSERT_OK(halo_semaphore_fail(
        semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  }
  ASSERT_NO_THREAD_ERRORS(errors);
}

HALO_CTS_CASE("semaphore.threads.monotonic_reader", kNeedSemaphores,
              "while a writer signals 1..~100,000, readers (query and poll) never see the value go backwards") {
  std::mt19937_64 rng = make_rng(ctx);
  const uint64_t last = 100000 + rng() % 1000;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  std::atomic<bool> writer_done{false};
  {
    ThreadGroup threads;
    threads.start([&] {  // Reader through query.
      uint64_t previous = 0;
      for (;;) {
        const bool done = writer_done.load();
        uint64_t value = 0;
        halo_status_t status = halo_semaphore_query(semaphore, &value);
        if (status != nullptr) return errors.check_ok(status, "query");
        if (value < previous || value > last) {
          return errors.add("query read " + to_text(value) + " after " +
                            to_text(previous));
        }
        previous = value;
        if (done) break;
      }
      if (previous != last) errors.add("final query read " + to_text(previous));
    });
    threads.start([&] {  // Reader through polls just above the last value seen.
      uint64_t reached = 0;
      while (!writer_done.load() && reached < last) {
        halo_status_t status =
            halo_semaphore_wait(semaphore, reached + 1, HALO_DEADLINE_INFINITE_PAST);
        if (status == nullptr) {
          ++reached;
        } else if (halo_status_code(status) == HALO_STATUS_DEADLINE_EXCEEDED) {
          halo_status_free(status);
        } else {
          return errors.check_ok(status, "poll");
        }
        // Once reached, a value stays reached.
        if (reached > 0) {
          halo_status_t again =
              halo_semaphore_wait(semaphore, reached, HALO_DEADLINE_INFINITE_PAST);
          if (again != nullptr) {
            return errors.add("value " + to_text(reached) +
                              " was reached, then a poll said " +
                              take_status_text(again));
          }
        }
      }
    });
    for (uint64_t value = 1; value <= last; ++value) {
      halo_status_t status = halo_semaphore_signal(semaphore, value);
      if (status != nullptr) {
        writer_done.store(true);
        CTS_ASSERT_OK(status);
      }
    }
    writer_done.store(true);
  }
  ASSERT_NO_THREAD_ERRORS(errors);
  CTS_ASSERT_EQ(value_of(semaphore), last);
}

HALO_CTS_CASE("semaphore.threads.racing_signalers", kNeedSemaphores,
              "4 threads signal 1..2,000 concurrently: each value succeeds at most once, losers get INVALID_ARGUMENT") {
  constexpr uint64_t kLast = 2000;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Errors errors;
  std::vector<std::atomic<int>> successes(kLast + 1);
  std::atomic<int> ready{0};
  {
    ThreadGroup threads;
    for (int t = 0; t < 4; ++t) {
      threads.start([&] {
        ready.fetch_add(1);
        while (ready.load() < 4) std::this_thread::yield();
        for (uint64_t value = 1; value <= kLast; ++value) {
          halo_status_t status = halo_semaphore_signal(semaphore, value);
          if (status == nullptr) {
            successes[value].fetch_add(1);
          } else if (halo_status_code(status) == HALO_STATUS_INVALID_ARGUMENT) {
            halo_status_free(status);
          } else {
            return errors.check_ok(status, "signal(" + to_text(value) + ")");
          }
        }
      });
    }
  }
  ASSERT_NO_THREAD_ERRORS(errors);
  for (uint64_t value = 1; value <= kLast; ++value) {
    CTS_ASSERT_MSG(successes[value].load() <= 1,
                   "value " + to_text(value) + " was signalled " +
                       to_text(successes[value].load()) + " times");
  }
  CTS_ASSERT_EQ(successes[kLast].load(), 1);
  CTS_ASSERT_EQ(value_of(semaphore), kLast);
}

HALO_CTS_CASE("semaphore.threads.two_devices_wait", kNeedSemaphores,
              "threads blocked in ALL and ANY waits over semaphores of two devices wake when another thread signals") {
  halo_semaphore_t* first = ctx.semaphore(0);
  halo_semaphore_t* second = ctx.semaphore(0, ctx.second_device());
  Errors errors;
  std::atomic<int> started{0};
  std::atomic<int> any_done{0};
  {
    ThreadGroup threads;
    threads.start([&] {
      halo_semaphore_t* list[] = {first, second};
      const uint64_t values[] = {1, 1};
      started.fetch_add(1);
      errors.check_ok(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 2, list, values,
                                           deadline_in_ms(kGenerousMs)),
                      "halo_semaphores_wait(ANY)");
      any_done.store(1);
    });
    threads.start([&] {
      halo_semaphore_t* list[] = {first, second};
      const uint64_t values[] = {1, 1};
      started.fetch_add(1);
      errors.check_ok(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                           deadline_in_ms(kGenerousMs)),
                      "halo_semaphores_wait(ALL)");
    });
    CTS_ASSERT(spin_until([&] { return started.load() == 2; }));
    CTS_ASSERT_OK(halo_semaphore_signal(second, 1));  // Releases ANY only.
    CTS_ASSERT(spin_until([&] { return any_done.load() == 1; }));
    CTS_ASSERT_OK(halo_semaphore_signal(first, 1));  // Releases ALL.
  }
  ASSERT_NO_THREAD_ERRORS(errors);
}

}  // namespace
