// The outcome of one case run and the reports made of them
// (cts/report_schema.md describes both files).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace halo::cts {

// One run of a case that failed and was run again (--rerun-failures).
struct FailedAttempt {
  std::string status;  // FAIL, CRASH or TIMEOUT.
  std::string reason;
  std::string output;  // The end of what the worker printed.
  double duration_s = 0;
  std::chrono::system_clock::time_point started_at;
};

struct Outcome {
  std::string plugin;
  std::string device;  // The device under test: "name (driver version)".
  std::string case_name;
  // PASS, FAIL, SKIP, CRASH, TIMEOUT, XFAIL (an expected failure) or
  // XPASS (an expected failure that passed, under --verify-expectations).
  std::string status;
  std::string reason;
  std::string output;  // What the worker printed, for failures.
  // The plugin whose device the case paired with (the interop.* cases), or
  // "" when it used none.
  std::string peer_used;
  double duration_s = 0;
  uint64_t seed = 0;
  int repetition = 0;
  std::string command;  // Reproduces exactly this run.
  std::chrono::system_clock::time_point started_at;
  // The attempts before the last one, each of which failed; the fields
  // above describe the last. Empty unless --rerun-failures ran it again.
  std::vector<FailedAttempt> failed_attempts;
};

// What the reports say about the run as a whole.
struct RunInfo {
  std::string halo_version;  // halo's release ("0.1.0").
  std::string peer;          // --peer as given; "" for the default choice.
  std::string host;          // The machine the run ran on.
  std::string command;       // The runner's command line.
  std::vector<std::string> plugins;  // --plugin as given; empty: every one.
  std::vector<std::string> filters;
  std::vector<std::string> skips;
  size_t device = 0;
  uint64_t seed = 0;
  std::string case_seed;  // --case-seed in decimal, or "" when not given.
  int repeat = 1;
  std::string shard;  // "I/N", or "" when the run is not sharded.
  int rerun_failures = 0;
  double timeout_s = 0;
  std::chrono::system_clock::time_point started_at;
};

// The counts of the run's last line.
struct Counts {
  size_t passed = 0, failed = 0, skipped = 0;
  size_t flaky = 0;  // Passed on a rerun; counted as passed too.

  void add(const Outcome& outcome);
};

bool is_failure(const Outcome& outcome);
bool is_skip(const Outcome& outcome);
// True when |outcome| failed at first and then did not (--rerun-failures).
bool is_flaky(const Outcome& outcome);

// One line on stdout per outcome, with the reason (and output) of failures.
void print_outcome(const Outcome& outcome);

// The JSON report's versioned schema, carried by every line.
inline constexpr const char* kJsonSchema = "halo-cts/2";

// The reports of a run, written as its cases finish so that a run killed
// midway (a cancelled CI job) leaves valid reports of the cases that ran:
// each JSON line is written by one write(2) as its case ends, and the JUnit
// file is rewritten whole after each case, into a temporary file in the
// same folder that then replaces it, so a reader never sees half a file.
// An empty path writes no such report.
class Reports {
 public:
  Reports(std::string json_path, std::string junit_path, RunInfo info);
  ~Reports();
  Reports(const Reports&) = delete;
  Reports& operator=(const Reports&) = delete;

  // Starts the JSON file afresh with its "run" record, and writes a JUnit
  // file of no case, so that no report of an earlier run is mistaken for
  // this one's.
  void start();
  void add(const Outcome& outcome);
  // Ends the JSON file with its "end" record: a file without one is from a
  // run that did not finish.
  void finish(const Counts& counts, int exit_code);
  // The paths of the reports that could not be written (after which they
  // are no longer written).
  std::vector<std::string> failed_paths() const;

 private:
  // A plugin's <testsuite>: its counts, and its <testcase> elements
  // rendered once, so that rewriting the file after each case costs a copy
  // of its text rather than rendering every case again.
  struct JunitSuite {
    std::string device;
    size_t tests = 0, failures = 0, skipped = 0;
    double time = 0;
    std::string testcases;
  };

  void write_json(const std::string& line);
  void write_junit();

  std::string json_path_;
  std::string junit_path_;
  RunInfo info_;
  int json_fd_ = -1;
  std::map<std::string, JunitSuite> junit_suites_;  // By plugin.
  bool json_ok_ = true;
  bool junit_ok_ = true;
};

}  // namespace halo::cts
