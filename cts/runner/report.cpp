#include "report.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "halo/abi.h"
#include "report_text.hpp"

namespace halo::cts {
namespace {

using Json = nlohmann::json;

// How much of a worker's output each report quotes: its end, where the
// verdict, the failure and any sanitizer summary are.
constexpr size_t kJunitOutputBytes = 8000;
constexpr size_t kStdoutOutputBytes = 4000;

std::string halo_abi() {
  return std::to_string(HALO_ABI_VERSION_MAJOR) + "." +
         std::to_string(HALO_ABI_VERSION_MINOR);
}

// |time| in UTC as "2026-01-31T12:00:00", with ".250Z" (milliseconds and
// the zone, RFC 3339) when |rfc3339|, else bare (JUnit's timestamp, which
// takes no zone).
std::string utc_time(std::chrono::system_clock::time_point time, bool rfc3339) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(
      time.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  std::tm utc = {};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t length = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  if (rfc3339) {
    std::snprintf(text + length, sizeof(text) - length, ".%03dZ",
                  static_cast<int>(since_epoch.count() % 1000));
  }
  return text;
}

std::string rfc3339_utc(std::chrono::system_clock::time_point time) {
  return utc_time(time, true);
}

// When a run of |duration_s| seconds that began at |start| ended. A
// duration no worker can have (NaN, negative, over a year) adds nothing,
// rather than overflowing the clock's integer.
std::chrono::system_clock::time_point end_of(
    std::chrono::system_clock::time_point start, double duration_s) {
  constexpr double kYearS = 366.0 * 24 * 3600;
  if (!(duration_s >= 0 && duration_s <= kYearS)) return start;
  return start + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                     std::chrono::duration<double>(duration_s));
}

// The JSON report's "run" record: what was asked for, once, first.
Json run_record(const RunInfo& info) {
  return {{"schema", kJsonSchema},
          {"record", "run"},
          {"halo_version", info.halo_version},
          {"halo_abi", halo_abi()},
          {"host", info.host},
          {"started_at", rfc3339_utc(info.started_at)},
          {"command", info.command},
          {"plugins", info.plugins},
          {"device_index", info.device},
          {"peer", info.peer},
          {"filters", info.filters},
          {"skips", info.skips},
          {"seed", std::to_string(info.seed)},
          {"case_seed", info.case_seed},
          {"repeat", info.repeat},
          {"shard", info.shard},
          {"rerun_failures", info.rerun_failures},
          {"timeout_s", info.timeout_s}};
}

// The JSON report's "case" record. The seed is a decimal string: JSON
// readers that hold numbers as doubles would round a 64-bit seed, and a
// replay would then use another one. Each record repeats what identifies
// the run, so that the records of several runs (the shards of one) can be
// merged line by line.
Json case_record(const Outcome& o, const RunInfo& info) {
  Json failed = Json::array();
  for (const FailedAttempt& attempt : o.failed_attempts) {
    failed.push_back({{"status", attempt.status},
                      {"reason", attempt.reason},
                      {"duration_s", attempt.duration_s},
                      {"started_at", rfc3339_utc(attempt.started_at)}});
  }
  return {{"schema", kJsonSchema},
          {"record", "case"},
          {"halo_version", info.halo_version},
          {"halo_abi", halo_abi()},
          {"host", info.host},
          {"plugin", o.plugin},
          {"device", o.device},
          {"peer", info.peer},
          {"peer_used", o.peer_used},
          {"case", o.case_name},
          {"status", o.status},
          {"reason", o.reason},
          {"duration_s", o.duration_s},
          {"seed", std::to_string(o.seed)},
          {"repetition", o.repetition},
          {"started_at", rfc3339_utc(o.started_at)},
          {"finished_at", rfc3339_utc(end_of(o.started_at, o.duration_s))},
          {"attempts", o.failed_attempts.size() + 1},
          {"flaky", is_flaky(o)},
          {"failed_attempts", std::move(failed)},
          {"command", o.command}};
}

Json end_record(const Counts& counts, int exit_code) {
  return {{"schema", kJsonSchema},
          {"record", "end"},
          {"finished_at", rfc3339_utc(std::chrono::system_clock::now())},
          {"passed", counts.passed},
          {"failed", counts.failed},
          {"skipped", counts.skipped},
          {"flaky", counts.flaky},
          {"exit_code", exit_code}};
}

// One JSON line. Text the plugin printed may be any bytes: invalid UTF-8
// becomes U+FFFD instead of throwing.
std::string json_line(const Json& record) {
  return record.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string attribute(std::string_view text) {
  return xml_escape(text, XmlContext::kAttribute);
}

// The JUnit class of |plugin|'s cases: the plugin, or "halo-cts" for the
// failures of a run as a whole ("run.filter", "run.plugins"), which have no
// plugin.
std::string junit_class(const std::string& plugin) {
  return plugin.empty() ? "halo-cts" : plugin;
}

std::string junit_suite_name(const std::string& plugin) {
  return plugin.empty() ? "halo-cts" : "halo-cts." + plugin;
}

// A JUnit element named |tag| for a failed run: the reason, the end of the
// worker's output and the command that reproduces it.
std::string junit_failure(const char* tag, const std::string& status,
                          const std::string& reason, const std::string& output,
                          const std::string& command) {
  return std::string("<") + tag + " type=\"" + attribute(status) + "\" message=\"" +
         attribute(reason) + "\">" +
         xml_escape(quoted_tail(output, kJunitOutputBytes)) +
         "\nreproduce: " + xml_escape(command) + "</" + tag + ">";
}

// The JUnit <testcase> element of |o|. Earlier failed attempts follow the
// outcome of the last as Maven Surefire writes them: <flakyFailure> when the
// last passed, <rerunFailure> when it failed too.
std::string junit_testcase(const Outcome& o) {
  std::ostringstream stream;
  stream << "    <testcase classname=\"" << attribute(junit_class(o.plugin)) << "\" name=\""
         << attribute(o.case_name) << "\" time=\"" << o.duration_s << "\">";
  if (!o.failed_attempts.empty()) {
    stream << "<properties><property name=\"attempts\" value=\""
           << o.failed_attempts.size() + 1 << "\"/><property name=\"flaky\" value=\""
           << (is_flaky(o) ? "true" : "false") << "\"/></properties>";
  }
  if (is_failure(o)) {
    stream << junit_failure("failure", o.status, o.reason, o.output, o.command);
  } else if (is_skip(o)) {
    stream << "<skipped message=\"" << attribute(o.reason) << "\"/>";
  }
  const char* earlier = is_failure(o) ? "rerunFailure" : "flakyFailure";
  for (const FailedAttempt& attempt : o.failed_attempts) {
    stream << junit_failure(earlier, attempt.status, attempt.reason, attempt.output,
                            o.command);
  }
  stream << "</testcase>\n";
  return stream.str();
}

// Replaces |path| with |contents| at once: they are written to a temporary
// file beside it, which rename() then puts in its place, so a reader (or a
// run killed meanwhile) sees the old file or the new one, never a mix.
bool replace_file(const std::string& path, const std::string& contents) {
  const std::string partial = path + ".partial";
  {
    std::ofstream stream(partial, std::ios::trunc | std::ios::binary);
    stream << contents;
    stream.flush();
    if (!stream) {
      std::remove(partial.c_str());
      return false;
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool is_failure(const Outcome& o) {
  return o.status == "FAIL" || o.status == "CRASH" || o.status == "TIMEOUT" ||
         o.status == "XPASS";
}

bool is_skip(const Outcome& o) {
  return o.status == "SKIP" || o.status == "XFAIL";
}

bool is_flaky(const Outcome& o) {
  return !o.failed_attempts.empty() && !is_failure(o);
}

void Counts::add(const Outcome& o) {
  failed += is_failure(o);
  skipped += is_skip(o);
  passed += o.status == "PASS";
  flaky += is_flaky(o);
}

void print_outcome(const Outcome& o) {
  std::printf("%-7s %s %s (%.1f ms)", o.status.c_str(), o.plugin.c_str(),
              o.case_name.c_str(), o.duration_s * 1000);
  if (!o.reason.empty()) std::printf(": %s", o.reason.c_str());
  const size_t attempts = o.failed_attempts.size() + 1;
  if (is_flaky(o)) {
    const FailedAttempt& first = o.failed_attempts.front();
    std::printf(" [flaky: passed on attempt %zu; attempt 1: %s: %s]", attempts,
                first.status.c_str(), first.reason.c_str());
  } else if (attempts > 1) {
    std::printf(" [failed all %zu attempts]", attempts);
  }
  std::printf("\n");
  if (is_failure(o)) {
    if (!o.output.empty()) {
      std::printf("  --- output ---\n%s\n  --------------\n",
                  quoted_tail(o.output, kStdoutOutputBytes).c_str());
    }
    std::printf("  reproduce: %s\n", o.command.c_str());
  }
  std::fflush(stdout);
}

Reports::Reports(std::string json_path, std::string junit_path, RunInfo info)
    : json_path_(std::move(json_path)),
      junit_path_(std::move(junit_path)),
      info_(std::move(info)) {}

Reports::~Reports() {
  if (json_fd_ >= 0) close(json_fd_);
}

void Reports::start() {
  if (!json_path_.empty()) {
    // O_CLOEXEC: the workers, started while it is open, must not inherit it.
    json_fd_ = open(json_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    json_ok_ = json_fd_ >= 0;
    write_json(json_line(run_record(info_)));
  }
  write_junit();
}

void Reports::add(const Outcome& outcome) {
  write_json(json_line(case_record(outcome, info_)));
  if (!junit_path_.empty()) {
    JunitSuite& suite = junit_suites_[outcome.plugin];
    if (suite.tests == 0) suite.device = outcome.device;
    ++suite.tests;
    suite.failures += is_failure(outcome);
    suite.skipped += is_skip(outcome);
    suite.time += outcome.duration_s;
    for (const FailedAttempt& attempt : outcome.failed_attempts) {
      suite.time += attempt.duration_s;
    }
    suite.testcases += junit_testcase(outcome);
  }
  write_junit();
}

void Reports::finish(const Counts& counts, int exit_code) {
  write_json(json_line(end_record(counts, exit_code)));
}

// One whole line in one write(2), unbuffered, so that a run killed at any
// moment leaves whole lines behind: a process dies between system calls,
// and a write to a regular file is short only when the disk is full.
void Reports::write_json(const std::string& line) {
  if (json_path_.empty() || !json_ok_) return;
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = write(json_fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      json_ok_ = false;
      return;
    }
    written += static_cast<size_t>(n);
  }
}

// One <testsuite> per plugin.
void Reports::write_junit() {
  if (junit_path_.empty() || !junit_ok_) return;
  size_t tests = 0, failures = 0, skipped = 0;
  double time = 0;
  for (const auto& [plugin, suite] : junit_suites_) {
    tests += suite.tests;
    failures += suite.failures;
    skipped += suite.skipped;
    time += suite.time;
  }
  std::ostringstream stream;
  stream << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         << "<testsuites name=\"halo-cts\" tests=\"" << tests << "\" failures=\""
         << failures << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\""
         << time << "\">\n";
  const std::string timestamp = utc_time(info_.started_at, false);
  for (const auto& [plugin, suite] : junit_suites_) {
    stream << "  <testsuite name=\"" << attribute(junit_suite_name(plugin)) << "\" tests=\""
           << suite.tests << "\" failures=\"" << suite.failures
           << "\" errors=\"0\" skipped=\"" << suite.skipped << "\" time=\""
           << suite.time << "\" timestamp=\"" << timestamp << "\" hostname=\""
           << attribute(info_.host) << "\">\n    <properties>";
    const std::pair<const char*, std::string> properties[] = {
        {"device", suite.device},
        {"halo_version", info_.halo_version},
        {"halo_abi", halo_abi()},
        {"peer", info_.peer},
        {"seed", std::to_string(info_.seed)},
        {"shard", info_.shard}};
    for (const auto& [name, value] : properties) {
      stream << "<property name=\"" << name << "\" value=\"" << attribute(value)
             << "\"/>";
    }
    stream << "</properties>\n" << suite.testcases << "  </testsuite>\n";
  }
  stream << "</testsuites>\n";
  junit_ok_ = replace_file(junit_path_, stream.str());
}

std::vector<std::string> Reports::failed_paths() const {
  std::vector<std::string> paths;
  if (!json_ok_) paths.push_back(json_path_);
  if (!junit_ok_) paths.push_back(junit_path_);
  return paths;
}

}  // namespace halo::cts
