#include "report.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

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

bool write_json_lines(const std::string& path,
                      const std::vector<Outcome>& outcomes) {
  std::ofstream stream(path);
  if (!stream) return false;
  for (const auto& o : outcomes) {
    nlohmann::json line = {
        {"plugin", o.plugin},     {"device", o.device},
        {"case", o.case_name},
        {"status", o.status},     {"reason", o.reason},
        {"duration_s", o.duration_s},
        {"seed", o.seed},         {"repetition", o.repetition},
        {"command", o.command}};
    stream << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
           << "\n";
  }
  return static_cast<bool>(stream);
}

bool write_junit(const std::string& path, const std::vector<Outcome>& outcomes) {
  std::map<std::string, std::vector<const Outcome*>> by_plugin;
  for (const auto& o : outcomes) by_plugin[o.plugin].push_back(&o);
  std::ofstream stream(path);
  if (!stream) return false;
  stream << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  for (const auto& [plugin, list] : by_plugin) {
    size_t failures = 0, skipped = 0;
    double time = 0;
    for (const Outcome* o : list) {
      failures += is_failure(*o);
      skipped += is_skip(*o);
      time += o->duration_s;
    }
    stream << "  <testsuite name=\"halo-cts." << xml_escape(plugin)
           << "\" tests=\"" << list.size() << "\" failures=\"" << failures
           << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"" << time
           << "\">\n";
    stream << "    <properties><property name=\"device\" value=\""
           << xml_escape(list.front()->device) << "\"/></properties>\n";
    for (const Outcome* o : list) {
      stream << "    <testcase classname=\"" << xml_escape(plugin)
             << "\" name=\"" << xml_escape(o->case_name) << "\" time=\""
             << o->duration_s << "\">";
      if (is_failure(*o)) {
        stream << "<failure type=\"" << o->status << "\" message=\""
               << xml_escape(o->reason) << "\">"
               << xml_escape(tail(o->output, 8000)) << "\nreproduce: "
               << xml_escape(o->command) << "</failure>";
      } else if (is_skip(*o)) {
        stream << "<skipped message=\"" << xml_escape(o->reason) << "\"/>";
      }
      stream << "</testcase>\n";
    }
    stream << "  </testsuite>\n";
  }
  stream << "</testsuites>\n";
  return static_cast<bool>(stream);
}

}  // namespace halo::cts
