// Percentiles and the text table.
#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace pipeline {
namespace {

using Measure = std::function<int64_t(const FrameTimes&)>;

// The |percent|th percentile, in milliseconds, of |measure| over the frames.
double percentile_ms(const RunResult& result, const Measure& measure, double percent) {
  std::vector<int64_t> values;
  for (const FrameTimes& frame : result.frames) values.push_back(measure(frame));
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t index = std::min(values.size() - 1,
                                static_cast<size_t>(percent / 100.0 * values.size()));
  return static_cast<double>(values[index]) / 1e6;
}

double frames_per_second(const RunResult& result) {
  const double seconds = static_cast<double>(result.end - result.start) / 1e9;
  return seconds > 0 ? static_cast<double>(result.frames.size()) / seconds : 0;
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string row(const std::string& label, const std::vector<std::string>& cells) {
  char text[64];
  std::snprintf(text, sizeof(text), "  %-34s", label.c_str());
  std::string line = text;
  for (const std::string& cell : cells) {
    std::snprintf(text, sizeof(text), "%24s", cell.c_str());
    line += text;
  }
  return line + "\n";
}

}  // namespace

std::string report_table(const std::vector<std::string>& stage_names,
                         const std::vector<NamedRun>& runs) {
  std::vector<std::pair<std::string, Measure>> stages = {
      {"decode (host) p50 ms", [](const FrameTimes& f) { return f.decode_end - f.decode_start; }}};
  // A device stage runs from the stage before it done (decode, for the
  // first) to its own semaphore reached.
  for (size_t i = 0; i < stage_names.size(); ++i) {
    stages.push_back({stage_names[i] + " p50 ms", [i](const FrameTimes& f) {
                        return f.stage_done[i] - (i == 0 ? f.decode_end : f.stage_done[i - 1]);
                      }});
  }
  stages.push_back(
      {"check (host) p50 ms", [](const FrameTimes& f) { return f.check_end - f.check_start; }});
  const Measure latency = [](const FrameTimes& f) { return f.check_end - f.decode_start; };
  std::vector<std::string> names;
  for (const NamedRun& run : runs) names.push_back(run.name);
  std::string table = row("", names);
  for (const auto& [label, measure] : stages) {
    std::vector<std::string> cells;
    for (const NamedRun& run : runs) cells.push_back(format("%.3f", percentile_ms(*run.result, measure, 50)));
    table += row(label, cells);
  }
  std::vector<std::string> latencies;
  std::vector<std::string> rates;
  for (const NamedRun& run : runs) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.3f / %.3f", percentile_ms(*run.result, latency, 50),
                  percentile_ms(*run.result, latency, 99));
    latencies.push_back(text);
    std::snprintf(text, sizeof(text), "%.1f (%.2fx)", frames_per_second(*run.result),
                  frames_per_second(*run.result) / frames_per_second(*runs.back().result));
    rates.push_back(text);
  }
  table += row("frame latency p50 / p99 ms", latencies);
  table += row("throughput frames/s (vs last)", rates);
  return table;
}

size_t frames_wrong(const RunResult& result) {
  return static_cast<size_t>(std::count_if(result.frames.begin(), result.frames.end(),
                                           [](const FrameTimes& f) { return f.wrong != 0; }));
}

}  // namespace pipeline
