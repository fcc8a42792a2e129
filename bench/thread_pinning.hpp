// Pins benchmark threads to cores the same way for the native and halo sides
// (DESIGN.md §8: figures vary with the core a thread lands on).
#ifndef HALO_BENCH_THREAD_PINNING_HPP_
#define HALO_BENCH_THREAD_PINNING_HPP_

#include <sched.h>

#include <string>

namespace halo::bench {

// Where the benchmark thread and its helper run.
struct PinPlan {
  // The core of the thread that runs the timed loop.
  int main_cpu = -1;
  // The core of the helper thread (ping-pong partner).
  int helper_cpu = -1;
  // For the benchmark label, e.g. "cpus 0,1" or "1 cpu: 0,0".
  std::string label;
};

// Returns cores 0 and 1 when this process may run on both; else the first two
// cores it may run on; else (one core) that core for both threads. The plan is
// computed once, so every benchmark uses the same one.
const PinPlan& pin_plan();

// Pins the calling thread to |cpu|. Returns false (and leaves the thread as it
// was) when the kernel refuses or |cpu| is negative.
bool pin_current_thread(int cpu);

// Saves the calling thread's affinity and restores it on destruction, so that
// one benchmark's pinning does not leak into the next.
class ScopedAffinity {
 public:
  ScopedAffinity();
  ~ScopedAffinity();
  ScopedAffinity(const ScopedAffinity&) = delete;
  ScopedAffinity& operator=(const ScopedAffinity&) = delete;

 private:
  cpu_set_t saved_;
  bool valid_ = false;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_THREAD_PINNING_HPP_
