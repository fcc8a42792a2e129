// Linux futex wrappers.
#include "halo/sdk/futex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace halo::sdk {
namespace {

constexpr int64_t kNanosecondsPerSecond = 1000000000;

// |operation| carries FUTEX_PRIVATE_FLAG unless the word is shared.
long futex_call(uint32_t* word, int operation, uint32_t value,
                const struct timespec* timeout) noexcept {
  // FUTEX_BITSET_MATCH_ANY makes FUTEX_WAIT_BITSET behave like FUTEX_WAIT
  // except that its timeout is an absolute CLOCK_MONOTONIC time.
  return syscall(SYS_futex, word, operation, value, timeout, nullptr,
                 FUTEX_BITSET_MATCH_ANY);
}

uint32_t* word_of(std::atomic<uint32_t>* word) noexcept {
  return reinterpret_cast<uint32_t*>(word);
}

bool wait_on(uint32_t* word, int flags, uint32_t expected,
             halo_time_ns_t deadline) noexcept {
  if (deadline == HALO_DEADLINE_INFINITE_PAST || deadline < 0) return false;
  struct timespec absolute = {};
  const struct timespec* timeout = nullptr;
  if (deadline != HALO_DEADLINE_INFINITE_FUTURE) {
    absolute.tv_sec = static_cast<time_t>(deadline / kNanosecondsPerSecond);
    absolute.tv_nsec = static_cast<long>(deadline % kNanosecondsPerSecond);
    timeout = &absolute;
  }
  long result =
      futex_call(word, FUTEX_WAIT_BITSET | flags, expected, timeout);
  if (result == 0) return true;
  switch (errno) {
    case ETIMEDOUT:
      return false;
    case EAGAIN:  // The word changed before we slept.
    case EINTR:   // A signal handler ran; the caller re-checks.
      return true;
    default:
      // EINVAL and friends mean a bug, but spinning back to the caller's
      // check is safer than sleeping forever; the deadline still applies.
      return deadline == HALO_DEADLINE_INFINITE_FUTURE ||
             monotonic_now_ns() < deadline;
  }
}

}  // namespace

bool futex_wait(std::atomic<uint32_t>* word, uint32_t expected,
                halo_time_ns_t deadline) noexcept {
  return wait_on(word_of(word), FUTEX_PRIVATE_FLAG, expected, deadline);
}

void futex_wake_all(std::atomic<uint32_t>* word) noexcept {
  futex_call(word_of(word), FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, nullptr);
}

void futex_wake_one(std::atomic<uint32_t>* word) noexcept {
  futex_call(word_of(word), FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, nullptr);
}

bool futex_wait_shared(uint32_t* word, uint32_t expected,
                       halo_time_ns_t deadline) noexcept {
  return wait_on(word, 0, expected, deadline);
}

void futex_wake_all_shared(uint32_t* word) noexcept {
  futex_call(word, FUTEX_WAKE, INT_MAX, nullptr);
}

halo_time_ns_t monotonic_now_ns() noexcept {
  struct timespec now = {};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<halo_time_ns_t>(now.tv_sec) * kNanosecondsPerSecond +
         now.tv_nsec;
}

}  // namespace halo::sdk
