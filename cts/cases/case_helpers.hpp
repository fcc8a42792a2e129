// Helpers shared by the case files: reading a semaphore's value, checking a
// failure's code and message, joining helper threads, and waiting (by
// polling, never by sleeping) for something another thread does.
#pragma once

#include <atomic>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cts.hpp"

namespace halo::cts {

// Returns the payload of |semaphore|; fails the case when the query does not
// return OK.
inline uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  halo_status_t status = halo_semaphore_query(semaphore, &value);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_semaphore_query returned " + take_status_text(status));
  }
  return value;
}

// Fails the case unless |status| has |code| and exactly |message|; frees it.
inline void check_failure(halo_status_t status, halo_status_code_t code,
                          const std::string& message, const char* what,
                          const char* file, int line) {
  const halo_status_code_t actual = halo_status_code(status);
  const std::string actual_message = halo_status_message(status);
  const std::string text = take_status_text(status);
  if (actual != code || actual_message != message) {
    fail(file, line,
         std::string(what) + " returned " + text + ", expected " +
             halo_status_code_name(code) + ": " + message);
  }
}

// Asserts |expression| returns a status with |code| and exactly |message|.
#define CTS_ASSERT_FAILURE(expression, code, message)                     \
  ::halo::cts::check_failure((expression), (code), (message), #expression, \
                             __FILE__, __LINE__)

// Fails the case unless |status| is INVALID_ARGUMENT with a message that
// names |function|; frees it.
inline void check_invalid(halo_status_t status, const char* function,
                          const char* what, const char* file, int line) {
  const halo_status_code_t code = halo_status_code(status);
  const bool named =
      std::strstr(halo_status_message(status), function) != nullptr;
  const std::string text = take_status_text(status);
  if (code != HALO_STATUS_INVALID_ARGUMENT || !named) {
    fail(file, line,
         std::string(what) + " returned " + text +
             ", expected INVALID_ARGUMENT with a message naming " + function);
  }
}

// Asserts |expression| returns INVALID_ARGUMENT naming |function|.
#define CTS_ASSERT_INVALID(expression, function) \
  ::halo::cts::check_invalid((expression), (function), #expression, __FILE__, \
                             __LINE__)

// Threads that are always joined, even when an assertion throws, so a failing
// case reports its failure instead of dying in std::thread's destructor.
// Threads must not throw: they record what they saw and the case checks it
// after join().
class ThreadGroup {
 public:
  ThreadGroup() = default;
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;
  ~ThreadGroup() { join(); }

  // Runs |body| on a new thread. Throws std::system_error if none starts.
  void start(std::function<void()> body) {
    threads_.emplace_back(std::move(body));
  }
  void join() {
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

// Spins (yielding) until |done| returns true or |timeout_ms| pass. Returns
// what |done| last returned. For effects another thread makes without a
// semaphore to wait on, such as a timepoint callback that may run on any
// thread; the timeout only bounds a broken plugin.
inline bool spin_until(const std::function<bool()>& done,
                       int64_t timeout_ms = kGenerousMs) {
  const halo_time_ns_t deadline = deadline_in_ms(timeout_ms);
  while (!done()) {
    if (halo_time_now_ns() >= deadline) return done();
    std::this_thread::yield();
  }
  return true;
}

// A 64-bit generator seeded from the case's seed, so --case-seed reproduces
// a run exactly.
inline std::mt19937_64 make_rng(const Context& context) {
  return std::mt19937_64(context.seed());
}

// A status with |code| and |message| for halo_semaphore_fail (which takes
// ownership).
inline halo_status_t make_status(halo_status_code_t code, const char* message) {
  return halo_status_create(code, message);
}

}  // namespace halo::cts
