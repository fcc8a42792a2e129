// The outcome of one case run and the reports made of them.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace halo::cts {

struct Outcome {
  std::string plugin;
  std::string device;  // The device under test: "name (driver version)".
  std::string case_name;
  // PASS, FAIL, SKIP, CRASH, TIMEOUT, XFAIL (an expected failure) or
  // XPASS (an expected failure that passed, under --verify-expectations).
  std::string status;
  std::string reason;
  std::string output;  // What the worker printed, for failures.
  double duration_s = 0;
  uint64_t seed = 0;
  int repetition = 0;
  std::string command;  // Reproduces exactly this run.
  std::chrono::system_clock::time_point started_at;
};

// What every line of the JSON report repeats about the run as a whole.
struct RunInfo {
  std::string peer;  // --peer as given; "" for the default choice.
  std::string host;  // The machine the run ran on.
};

bool is_failure(const Outcome& outcome);
bool is_skip(const Outcome& outcome);

// One line on stdout per outcome, with the reason (and output) of failures.
void print_outcome(const Outcome& outcome);

// The JSON report's versioned schema, carried by every line (cts/README.md
// documents its fields).
inline constexpr const char* kJsonSchema = "halo-cts/1";

// The reports of a run, written as its cases finish so that a run killed
// midway (a cancelled CI job) leaves valid reports of the cases that ran:
// each JSON line is flushed as its case ends, and the JUnit file is
// rewritten whole after each case, into a temporary file in the same folder
// that then replaces it, so a reader never sees half a file. An empty path
// writes no such report.
class Reports {
 public:
  Reports(std::string json_path, std::string junit_path, RunInfo info);

  // Empties the JSON file and writes a JUnit file of no case, so that no
  // report of an earlier run is mistaken for this one's.
  void start();
  void add(const Outcome& outcome);
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

  void write_junit();

  std::string json_path_;
  std::string junit_path_;
  RunInfo info_;
  std::ofstream json_;
  std::map<std::string, JunitSuite> junit_suites_;  // By plugin.
  bool json_ok_ = true;
  bool junit_ok_ = true;
};

}  // namespace halo::cts
