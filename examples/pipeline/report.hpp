// The table halo-pipeline ends with: per-stage times, frame latency and
// throughput of each run, side by side.
#ifndef HALO_PIPELINE_REPORT_HPP_
#define HALO_PIPELINE_REPORT_HPP_

#include <string>
#include <vector>

#include "run.hpp"

namespace pipeline {

struct NamedRun {
  std::string name;
  const RunResult* result;
};

// The table, one column per run, a row per stage (|stage_names|, the device
// stages in order); throughput ratios against the last run.
std::string report_table(const std::vector<std::string>& stage_names,
                         const std::vector<NamedRun>& runs);

// Frames with a wrong element, over every run.
size_t frames_wrong(const RunResult& result);

}  // namespace pipeline

#endif  // HALO_PIPELINE_REPORT_HPP_
