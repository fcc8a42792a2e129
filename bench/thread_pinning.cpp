// Thread pinning with pthread_setaffinity_np.
#include "thread_pinning.hpp"

#include <pthread.h>

#include <vector>

namespace halo::bench {
namespace {

// The cores the calling thread may run on, in increasing order.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
    return cpus;
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

PinPlan make_pin_plan() {
  PinPlan plan;
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) {
    plan.label = "unpinned";
    return plan;
  }
  // Cores 0 and 1 come first in |cpus| whenever they are allowed.
  plan.main_cpu = cpus[0];
  if (cpus.size() >= 2) {
    plan.helper_cpu = cpus[1];
    plan.label = "cpus " + std::to_string(plan.main_cpu) + "," +
                 std::to_string(plan.helper_cpu);
  } else {
    plan.helper_cpu = cpus[0];
    plan.label = "1 cpu: " + std::to_string(plan.main_cpu) + "," +
                 std::to_string(plan.helper_cpu);
  }
  return plan;
}

}  // namespace

const PinPlan& pin_plan() {
  static const PinPlan plan = make_pin_plan();
  return plan;
}

bool pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

ScopedAffinity::ScopedAffinity() {
  CPU_ZERO(&saved_);
  valid_ = pthread_getaffinity_np(pthread_self(), sizeof(saved_), &saved_) == 0;
}

ScopedAffinity::~ScopedAffinity() {
  if (valid_) pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
}

}  // namespace halo::bench
