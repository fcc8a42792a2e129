// The runner's process pool against a fake worker that misbehaves on
// purpose: the per-case timeout must hold whatever the worker does, and the
// output it keeps must stay bounded. Each timeout case uses a short limit;
// a pool that lets a worker escape its deadline hangs here until ctest's
// own timeout fails the test.
#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bounded_output.hpp"
#include "process_pool.hpp"

namespace halo::cts {
namespace {

constexpr double kShortTimeoutS = 1.0;
// Far longer than any well-behaved fake worker needs.
constexpr double kGenerousTimeoutS = 120.0;

// Runs each of |commands| through the pool and returns the results by index.
std::vector<ProcessResult> run(const std::vector<std::vector<std::string>>& commands,
                               double timeout_s, int jobs = 2) {
  std::vector<ProcessResult> results(commands.size());
  std::vector<int> calls(commands.size(), 0);
  run_processes(commands, jobs, timeout_s, [&](size_t index, ProcessResult&& result) {
    ++calls[index];
    results[index] = std::move(result);
  });
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i], 1) << "command " << i << " was reported " << calls[i] << " times";
  }
  return results;
}

ProcessResult run_one(std::vector<std::string> argv, double timeout_s) {
  return std::move(run({std::move(argv)}, timeout_s, 1)[0]);
}

size_t kept_limit() {
  // Head, tail and the marker line between them.
  return BoundedOutput::kHeadBytes + BoundedOutput::kTailBytes + 64;
}

TEST(ProcessPoolTest, WorkerThatFloodsItsOutputTimesOut) {
  const ProcessResult result = run_one({HALO_CTS_FAKE_WORKER, "flood"}, kShortTimeoutS);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.signal, 0) << "our own kill is not reported as a signal";
  EXPECT_LE(result.output.size(), kept_limit());
  EXPECT_NE(result.output.find(" bytes dropped …]"), std::string::npos);
}

TEST(ProcessPoolTest, WorkerThatClosesItsOutputAndRunsOnTimesOut) {
  const ProcessResult result =
      run_one({HALO_CTS_FAKE_WORKER, "close-and-block"}, kShortTimeoutS);
  EXPECT_TRUE(result.timed_out);
}

TEST(ProcessPoolTest, HelperThatKeepsThePipeOpenTimesOut) {
  const ProcessResult result =
      run_one({HALO_CTS_FAKE_WORKER, "helper-holds-pipe"}, kShortTimeoutS);
  EXPECT_TRUE(result.timed_out);
}

TEST(ProcessPoolTest, LargeOutputKeepsBothEndsAndSaysWhatWasDropped) {
  constexpr long kFiller = 10 * 1024 * 1024;
  const ProcessResult result =
      run_one({HALO_CTS_FAKE_WORKER, "big", std::to_string(kFiller)}, kGenerousTimeoutS);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_LE(result.output.size(), kept_limit());
  EXPECT_EQ(result.output.rfind("HEAD\n", 0), 0u) << "the head is kept";
  EXPECT_TRUE(result.output.ends_with("TAIL\n")) << "the tail is kept";
  const long total = kFiller + 10;
  const long dropped =
      total - static_cast<long>(BoundedOutput::kHeadBytes + BoundedOutput::kTailBytes);
  EXPECT_NE(result.output.find("[… " + std::to_string(dropped) + " bytes dropped …]"),
            std::string::npos);
}

TEST(ProcessPoolTest, ExitCodesSignalsAndOutputAreReported) {
  const std::vector<ProcessResult> results = run(
      {{HALO_CTS_FAKE_WORKER, "exit", "0"},
       {HALO_CTS_FAKE_WORKER, "exit", "7"},
       {HALO_CTS_FAKE_WORKER, "abort"},
       {HALO_CTS_FAKE_WORKER, "exit", "5"}},
      kGenerousTimeoutS);
  EXPECT_EQ(results[0].exit_code, 0);
  EXPECT_EQ(results[0].output, "bye\n");
  EXPECT_EQ(results[1].exit_code, 7);
  EXPECT_EQ(results[2].signal, SIGABRT);
  EXPECT_EQ(results[3].exit_code, 5);
  for (const ProcessResult& result : results) EXPECT_FALSE(result.timed_out);
}

// A worker that times out does not hold up the others running beside it.
TEST(ProcessPoolTest, TimeoutKillsOnlyTheLateWorker) {
  const std::vector<ProcessResult> results =
      run({{HALO_CTS_FAKE_WORKER, "close-and-block"}, {HALO_CTS_FAKE_WORKER, "exit", "0"}},
          kShortTimeoutS);
  EXPECT_TRUE(results[0].timed_out);
  EXPECT_FALSE(results[1].timed_out);
  EXPECT_EQ(results[1].exit_code, 0);
}

TEST(ProcessPoolTest, ProgramThatCannotStartIsReported) {
  const ProcessResult result = run_one({"/nonexistent/halo-cts-worker"}, kShortTimeoutS);
  EXPECT_FALSE(result.timed_out);
  EXPECT_NE(result.output.find("posix_spawn"), std::string::npos) << result.output;
}

// Work made by on_done (a case run again) starts in the same pool, which
// ends only once nothing runs and nothing is left to start.
TEST(ProcessPoolTest, CommandsQueuedByOnDoneRun) {
  const std::vector<std::vector<std::string>> commands = {
      {HALO_CTS_FAKE_WORKER, "exit", "7"}, {HALO_CTS_FAKE_WORKER, "exit", "0"}};
  std::vector<size_t> queue = {0, 1};
  std::vector<int> runs(commands.size(), 0);
  run_processes(
      [&](size_t* out_index, std::vector<std::string>* out_argv) {
        if (queue.empty()) return false;
        *out_index = queue.front();
        queue.erase(queue.begin());
        *out_argv = commands[*out_index];
        return true;
      },
      2, kGenerousTimeoutS,
      [&](size_t index, ProcessResult&& result) {
        ++runs[index];
        // The failing command runs twice more.
        if (result.exit_code == 7 && runs[index] < 3) queue.push_back(index);
      });
  EXPECT_EQ(runs[0], 3);
  EXPECT_EQ(runs[1], 1);
}

TEST(BoundedOutputTest, KeepsEverythingUpToTheLimit) {
  BoundedOutput output;
  const std::string head(BoundedOutput::kHeadBytes, 'h');
  const std::string tail(BoundedOutput::kTailBytes, 't');
  output.append(head);
  output.append(tail);
  EXPECT_EQ(output.dropped_bytes(), 0u);
  EXPECT_EQ(output.take(), head + tail);
}

TEST(BoundedOutputTest, DropsTheMiddleAndCountsIt) {
  BoundedOutput output;
  output.append(std::string(BoundedOutput::kHeadBytes, 'h'));
  // Many small appends, then one larger than the whole tail.
  for (int i = 0; i < 1000; ++i) output.append("0123456789");
  output.append(std::string(3 * BoundedOutput::kTailBytes, 'm'));
  output.append("end");
  const size_t dropped = 10000 + 2 * BoundedOutput::kTailBytes + 3;
  EXPECT_EQ(output.dropped_bytes(), dropped);
  const std::string text = output.take();
  EXPECT_EQ(text.substr(0, BoundedOutput::kHeadBytes),
            std::string(BoundedOutput::kHeadBytes, 'h'));
  EXPECT_TRUE(text.ends_with("end"));
  const std::string marker = "\n[… " + std::to_string(dropped) + " bytes dropped …]\n";
  EXPECT_EQ(text.size(),
            BoundedOutput::kHeadBytes + marker.size() + BoundedOutput::kTailBytes);
  EXPECT_NE(text.find(marker), std::string::npos);
}

}  // namespace
}  // namespace halo::cts
