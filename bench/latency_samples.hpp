// The latency of single submissions, one round trip at a time: what the
// *SubmitLatency benchmarks of halo-bench-cuda, halo-bench-vulkan and
// halo-bench-opencl share (bench/README.md).
//
// A median over repetitions hides the slow round trips of a run; these
// benchmarks time each iteration on its own (registered with manual time,
// so the reported time is the mean round trip) and report, as counters,
// the 50th and 99th percentiles of the round trip (p50_ns, p99_ns) and of
// the submission call alone (issue_p50_ns, issue_p99_ns). Every side,
// native or halo, reads the same clock the same number of times per
// iteration, so the clock's own cost is alike on both.
#ifndef HALO_BENCH_LATENCY_SAMPLES_HPP_
#define HALO_BENCH_LATENCY_SAMPLES_HPP_

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace halo::bench {

// Per-iteration times of one benchmark run, kept without allocating in the
// timed loop.
class LatencySamples {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LatencySamples(const benchmark::State& state) {
    issue_.reserve(static_cast<size_t>(state.max_iterations));
    round_trip_.reserve(static_cast<size_t>(state.max_iterations));
  }

  // Runs the iterations of |state|, each timed on its own: |issue()| is the
  // submission call, |complete()| the host's wait until it sees the
  // submission done. Any bookkeeping a side needs (the next value to
  // signal) belongs in |issue|, the same on both sides.
  template <typename Issue, typename Complete>
  void time_each(benchmark::State& state, Issue issue, Complete complete) {
    for (auto _ : state) {
      const Clock::time_point start = Clock::now();
      issue();
      const Clock::time_point issued = Clock::now();
      complete();
      add(state, start, issued, Clock::now());
    }
  }

  // Sets the percentile counters (in nanoseconds). Call after the timed
  // loop: it reorders the samples.
  void report(benchmark::State& state) {
    state.counters["p50_ns"] = percentile_ns(round_trip_, 50);
    state.counters["p99_ns"] = percentile_ns(round_trip_, 99);
    state.counters["issue_p50_ns"] = percentile_ns(issue_, 50);
    state.counters["issue_p99_ns"] = percentile_ns(issue_, 99);
  }

 private:
  // Adds one iteration that started at |start|, returned from the
  // submission call at |issued| and saw the completion at |end|, and sets
  // it as the iteration's manual time.
  void add(benchmark::State& state, Clock::time_point start,
           Clock::time_point issued, Clock::time_point end) {
    issue_.push_back((issued - start).count());
    round_trip_.push_back((end - start).count());
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }

  // The nearest-rank |percent|th percentile of |ticks|, reordering them.
  static double percentile_ns(std::vector<Clock::rep>& ticks, int percent) {
    if (ticks.empty()) return 0;
    const size_t rank = (ticks.size() * percent + 99) / 100;
    const auto at = ticks.begin() + static_cast<std::ptrdiff_t>(rank - 1);
    std::nth_element(ticks.begin(), at, ticks.end());
    return std::chrono::duration<double, std::nano>(Clock::duration(*at))
        .count();
  }

  std::vector<Clock::rep> issue_;
  std::vector<Clock::rep> round_trip_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_LATENCY_SAMPLES_HPP_
