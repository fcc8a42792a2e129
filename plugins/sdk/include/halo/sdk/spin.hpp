// Bounded spinning without system calls: for a thread that expects what it
// waits for within microseconds, where a futex sleep and wake-up would cost
// more than the wait (a GPU finishing short work, a submitter handing over
// the next submission). Callers bound every spin and then sleep, or poll
// with a growing sleep where nothing wakes them promptly.
#ifndef HALO_SDK_SPIN_HPP_
#define HALO_SDK_SPIN_HPP_

#include <algorithm>
#include <chrono>
#include <thread>

namespace halo::sdk {

// Tells the CPU this is a spin loop (x86's pause: less power, and the
// sibling hyperthread runs faster).
inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Calls |done| until it returns true or |duration| has passed, pausing
// |interval| between calls (a call that takes a driver's lock should not
// run back to back with a submitting thread's). Returns |done|'s last
// answer. |done| runs at least once.
template <class Done>
bool spin_until(std::chrono::nanoseconds duration,
                std::chrono::nanoseconds interval, Done&& done) {
  using Clock = std::chrono::steady_clock;
  if (done()) return true;
  const Clock::time_point until = Clock::now() + duration;
  while (Clock::now() < until) {
    const Clock::time_point next = Clock::now() + interval;
    do {
      cpu_pause();
    } while (Clock::now() < next);
    if (done()) return true;
  }
  return false;
}

// Calls |done| until it returns true, sleeping between calls: |first| at
// first, each sleep a quarter longer than the one before, up to |longest|.
// For waits past a bounded spin whose end nothing reports promptly: a call
// is then at most a quarter of the time already waited, or |longest|, late,
// and the thread makes no call while it sleeps.
template <class Done>
void poll_with_backoff(std::chrono::nanoseconds first,
                       std::chrono::nanoseconds longest, Done&& done) {
  std::chrono::nanoseconds sleep = first;
  while (!done()) {
    std::this_thread::sleep_for(sleep);
    sleep = std::min(longest, sleep + sleep / 4);
  }
}

}  // namespace halo::sdk

#endif  // HALO_SDK_SPIN_HPP_
