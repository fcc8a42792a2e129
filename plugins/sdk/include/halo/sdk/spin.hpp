// Bounded spinning without system calls: for a thread that expects what it
// waits for within microseconds, where a futex sleep and wake-up would cost
// more than the wait (a GPU finishing short work, a submitter handing over
// the next submission). Callers bound every spin and then sleep.
#ifndef HALO_SDK_SPIN_HPP_
#define HALO_SDK_SPIN_HPP_

#include <chrono>

namespace halo::sdk {

// Tells the CPU this is a spin loop (x86's pause: less power, and the
// sibling hyperthread runs faster).
inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Between two polls of a GPU's progress through a driver call that takes
// the lock the submitting thread's next call needs. On the H100 a 1 µs
// interval left the opencl plugin's 10,000-submission chain at 145-181 ms,
// 4 µs at 137-141 ms, with round trips alike; the vulkan plugin's
// notification thread polls at it and left NVIDIA's submissions unslowed
// (bench/README.md).
inline constexpr std::chrono::microseconds kDriverPollInterval{4};

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

}  // namespace halo::sdk

#endif  // HALO_SDK_SPIN_HPP_
