// Marks the timed stretch of a benchmark for counting host instructions per
// submission under valgrind's callgrind (bench/count_instructions.py).
//
// Wall time on a shared machine drifts; instructions do not, so they show
// per-submission host work exactly, halo beside the native API. The marker
// zeroes callgrind's counters when the stretch starts and dumps them, for
// every thread of the process (the caller's, the plugin's and the driver's
// own), when it ends, labelled with the submissions the stretch made. A
// benchmark function may run several times; each run dumps once.
//
// Outside valgrind each client request is a few no-op instructions; where
// valgrind's headers are absent the marker compiles to nothing.
#ifndef HALO_BENCH_INSTRUCTION_COUNT_HPP_
#define HALO_BENCH_INSTRUCTION_COUNT_HPP_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HALO_BENCH_CALLGRIND 1
#endif

namespace halo::bench {

class InstructionCount {
 public:
  // Starts counting. |submissions_per_iteration|: the submissions each
  // iteration of |state| makes.
  InstructionCount(const benchmark::State& state,
                   int64_t submissions_per_iteration)
      : state_(state), per_iteration_(submissions_per_iteration) {
#ifdef HALO_BENCH_CALLGRIND
    CALLGRIND_ZERO_STATS;
#endif
  }
  InstructionCount(const InstructionCount&) = delete;
  InstructionCount& operator=(const InstructionCount&) = delete;

  // Dumps the counts, labelled "submissions=N".
  ~InstructionCount() {
#ifdef HALO_BENCH_CALLGRIND
    const std::string label =
        "submissions=" +
        std::to_string(static_cast<int64_t>(state_.iterations()) *
                       per_iteration_);
    CALLGRIND_DUMP_STATS_AT(label.c_str());
#endif
  }

 private:
  const benchmark::State& state_;
  const int64_t per_iteration_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_INSTRUCTION_COUNT_HPP_
