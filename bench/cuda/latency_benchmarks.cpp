// The latency of single submissions: the submit-and-wait round trip of
// BM_CuSubmitWait, timed one iteration at a time so that its tail shows.
//
// A median over repetitions hides the slow round trips of a run; here each
// iteration is timed on its own (manual time: the figure is the mean
// round trip) and the run reports, as counters, the 50th and 99th
// percentiles of the round trip (p50_ns, p99_ns) and of the submission
// call alone (issue_p50_ns, issue_p99_ns): halo_device_queue_execute
// beside the cuEventRecord it comes down to. Both sides read the same
// clock the same number of times per iteration.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "cuda_benchmarks.hpp"
#include "fixture.hpp"

namespace halo::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Per-iteration times of one run, kept without allocating in the timed
// loop.
class LatencySamples {
 public:
  explicit LatencySamples(const benchmark::State& state) {
    issue_.reserve(static_cast<size_t>(state.max_iterations));
    round_trip_.reserve(static_cast<size_t>(state.max_iterations));
  }

  // Adds one iteration that started at |start|, returned from the
  // submission call at |issued| and saw the signal at |end|, and sets it
  // as the iteration's manual time.
  void add(benchmark::State& state, Clock::time_point start,
           Clock::time_point issued, Clock::time_point end) {
    issue_.push_back((issued - start).count());
    round_trip_.push_back((end - start).count());
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }

  // Sets the percentile counters (in nanoseconds).
  void report(benchmark::State& state) {
    state.counters["p50_ns"] = percentile_ns(round_trip_, 50);
    state.counters["p99_ns"] = percentile_ns(round_trip_, 99);
    state.counters["issue_p50_ns"] = percentile_ns(issue_, 50);
    state.counters["issue_p99_ns"] = percentile_ns(issue_, 99);
  }

 private:
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

}  // namespace

void submit_latency_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawCuda& raw = fixture().raw();
  raw.make_current();
  CuEvent done = make_event(kBlockingSyncEvent);
  LatencySamples samples(state);
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    check_cu(cuEventRecord(done.get(), raw.stream()), "cuEventRecord");
    const Clock::time_point issued = Clock::now();
    check_cu(cuEventSynchronize(done.get()), "cuEventSynchronize");
    samples.add(state, start, issued, Clock::now());
  }
  samples.report(state);
}

void submit_latency_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  SemaphorePtr done = make_semaphore(device, 0);
  LatencySamples samples(state);
  uint64_t value = 0;
  for (auto _ : state) {
    ++value;
    const Clock::time_point start = Clock::now();
    submit(device, Timepoint{}, {done.get(), value}, nullptr);
    const Clock::time_point issued = Clock::now();
    wait({done.get(), value});
    samples.add(state, start, issued, Clock::now());
  }
  wait_idle(device);
  samples.report(state);
}

}  // namespace halo::bench
