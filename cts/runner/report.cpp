#include "report.hpp"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "halo/abi.h"

namespace halo::cts {
namespace {

// The length of the well-formed UTF-8 character at |at|, or 0 when the bytes
// there are not one (a stray byte, a truncated, overlong or surrogate
// sequence).
size_t utf8_length(const std::string& text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(at);
  const size_t length = first < 0x80 ? 1 : (first >> 5) == 0x6 ? 2
                        : (first >> 4) == 0xE ? 3 : (first >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  uint32_t value = length == 1 ? first : first & (0x7Fu >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    value = (value << 6) | (byte(at + i) & 0x3F);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kSmallest[length] || value > 0x10FFFF ||
      (value >= 0xD800 && value <= 0xDFFF) || value == 0xFFFE || value == 0xFFFF) {
    return 0;
  }
  return length;
}

// |text| as XML 1.0 character data in UTF-8, whatever bytes the plugin
// under test printed: markup characters escaped, control characters XML
// forbids even escaped shown as '?', and each byte that is not part of a
// well-formed UTF-8 character replaced by U+FFFD.
std::string xml_escape(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t length = utf8_length(text, at);
    if (length == 0) {
      escaped += "\xEF\xBF\xBD";
      ++at;
      continue;
    }
    const char c = text[at];
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      default:
        if (length == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\n' &&
            c != '\t') {
          escaped += '?';
        } else {
          escaped.append(text, at, length);
        }
    }
    at += length;
  }
  return escaped;
}

// The last |limit| bytes of |text| (the end of a log says most), starting on
// a character boundary so that the cut never splits a UTF-8 character.
std::string tail(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t start = text.size() - limit;
  while (start < text.size() &&
         (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
    ++start;
  }
  return "…" + text.substr(start);
}

// |time| in RFC 3339, UTC, to the millisecond ("2026-01-31T12:00:00.250Z").
std::string rfc3339_utc(std::chrono::system_clock::time_point time) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(
      time.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  std::tm utc = {};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t length = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof(text) - length, ".%03dZ",
                static_cast<int>(since_epoch.count() % 1000));
  return text;
}

// One line of the JSON report (schema kJsonSchema). The seed is a decimal
// string: JSON readers that hold numbers as doubles would round a 64-bit
// seed, and a replay would then use another one.
nlohmann::json json_line(const Outcome& o, const RunInfo& info) {
  return {{"schema", kJsonSchema},
          {"halo_abi", std::to_string(HALO_ABI_VERSION_MAJOR) + "." +
                           std::to_string(HALO_ABI_VERSION_MINOR)},
          {"plugin", o.plugin},
          {"device", o.device},
          {"peer", info.peer},
          {"case", o.case_name},
          {"status", o.status},
          {"reason", o.reason},
          {"duration_s", o.duration_s},
          {"seed", std::to_string(o.seed)},
          {"repetition", o.repetition},
          {"started_at", rfc3339_utc(o.started_at)},
          {"host", info.host},
          {"command", o.command}};
}

// The JUnit <testcase> element of |o|, one line.
std::string junit_testcase(const Outcome& o) {
  std::ostringstream stream;
  stream << "    <testcase classname=\"" << xml_escape(o.plugin) << "\" name=\""
         << xml_escape(o.case_name) << "\" time=\"" << o.duration_s << "\">";
  if (is_failure(o)) {
    stream << "<failure type=\"" << o.status << "\" message=\""
           << xml_escape(o.reason) << "\">" << xml_escape(tail(o.output, 8000))
           << "\nreproduce: " << xml_escape(o.command) << "</failure>";
  } else if (is_skip(o)) {
    stream << "<skipped message=\"" << xml_escape(o.reason) << "\"/>";
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
    std::ofstream stream(partial, std::ios::trunc);
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

void print_outcome(const Outcome& o) {
  std::printf("%-7s %s %s (%.1f ms)", o.status.c_str(), o.plugin.c_str(),
              o.case_name.c_str(), o.duration_s * 1000);
  if (!o.reason.empty()) std::printf(": %s", o.reason.c_str());
  std::printf("\n");
  if (is_failure(o)) {
    if (!o.output.empty()) {
      std::printf("  --- output ---\n%s\n  --------------\n",
                  tail(o.output, 4000).c_str());
    }
    std::printf("  reproduce: %s\n", o.command.c_str());
  }
  std::fflush(stdout);
}

Reports::Reports(std::string json_path, std::string junit_path, RunInfo info)
    : json_path_(std::move(json_path)),
      junit_path_(std::move(junit_path)),
      info_(std::move(info)) {}

void Reports::start() {
  if (!json_path_.empty()) {
    json_.open(json_path_, std::ios::trunc);
    json_ok_ = static_cast<bool>(json_);
  }
  write_junit();
}

void Reports::add(const Outcome& outcome) {
  if (!json_path_.empty() && json_ok_) {
    json_ << json_line(outcome, info_).dump(
                 -1, ' ', false, nlohmann::json::error_handler_t::replace)
          << "\n";
    json_.flush();
    json_ok_ = static_cast<bool>(json_);
  }
  if (!junit_path_.empty()) {
    JunitSuite& suite = junit_suites_[outcome.plugin];
    if (suite.tests == 0) suite.device = outcome.device;
    ++suite.tests;
    suite.failures += is_failure(outcome);
    suite.skipped += is_skip(outcome);
    suite.time += outcome.duration_s;
    suite.testcases += junit_testcase(outcome);
  }
  write_junit();
}

// One <testsuite> per plugin.
void Reports::write_junit() {
  if (junit_path_.empty() || !junit_ok_) return;
  std::ostringstream stream;
  stream << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (const auto& [plugin, suite] : junit_suites_) {
    stream << "  <testsuite name=\"halo-cts." << xml_escape(plugin)
           << "\" tests=\"" << suite.tests << "\" failures=\"" << suite.failures
           << "\" errors=\"0\" skipped=\"" << suite.skipped << "\" time=\""
           << suite.time << "\">\n"
           << "    <properties><property name=\"device\" value=\""
           << xml_escape(suite.device) << "\"/></properties>\n"
           << suite.testcases << "  </testsuite>\n";
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
