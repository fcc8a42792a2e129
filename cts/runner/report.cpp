#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace halo::cts {
namespace {

std::string xml_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          escaped += '?';
        } else {
          escaped += c;
        }
    }
  }
  return escaped;
}

// The last |limit| bytes of |text|: the end of a log says most.
std::string tail(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return "…" + text.substr(text.size() - limit);
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
