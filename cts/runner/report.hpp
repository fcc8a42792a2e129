// The outcome of one case run and the reports made of them.
#pragma once

#include <cstdint>
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
};

bool is_failure(const Outcome& outcome);
bool is_skip(const Outcome& outcome);

// One line on stdout per outcome, with the reason (and output) of failures.
void print_outcome(const Outcome& outcome);

// One JSON object per line: plugin, device, case, status, reason, duration,
// seed, repetition, command.
bool write_json_lines(const std::string& path,
                      const std::vector<Outcome>& outcomes);

// JUnit XML: one testsuite per plugin.
bool write_junit(const std::string& path, const std::vector<Outcome>& outcomes);

}  // namespace halo::cts
