// Per-plugin expectation files: known failures, each with its reason.
//
// One entry a line: PLUGIN_GLOB CASE_GLOB REASON…  ('#' starts a comment).
// A case that fails, crashes or times out and matches an entry counts as an
// expected failure; with --verify-expectations a match that passes is a
// failure, so stale entries cannot linger.
#pragma once

#include <string>
#include <vector>

namespace halo::cts {

struct Expectation {
  std::string plugin_glob;
  std::string case_glob;
  std::string reason;
};

// Reads |path|. Returns false with |out_error| naming the line on a malformed
// entry (an entry without a reason is malformed).
bool read_expectations(const std::string& path, std::vector<Expectation>* out,
                       std::string* out_error);

// The entry matching (|plugin|, |case_name|), or NULL.
const Expectation* find_expectation(const std::vector<Expectation>& entries,
                                    const std::string& plugin,
                                    const std::string& case_name);

}  // namespace halo::cts
