#include "expectations.hpp"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace halo::cts {

bool read_expectations(const std::string& path, std::vector<Expectation>* out,
                       std::string* out_error) {
  std::ifstream stream(path);
  if (!stream) {
    *out_error = "cannot read expectations file " + path;
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(stream, line); ++number) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    Expectation entry;
    if (!(fields >> entry.plugin_glob)) continue;  // Blank or comment.
    std::getline(fields >> entry.case_glob >> std::ws, entry.reason);
    if (entry.case_glob.empty() || entry.reason.empty()) {
      *out_error = path + ":" + std::to_string(number) +
                   ": expected 'PLUGIN_GLOB CASE_GLOB REASON'";
      return false;
    }
    out->push_back(std::move(entry));
  }
  return true;
}

const Expectation* find_expectation(const std::vector<Expectation>& entries,
                                    const std::string& plugin,
                                    const std::string& case_name) {
  for (const auto& entry : entries) {
    if (fnmatch(entry.plugin_glob.c_str(), plugin.c_str(), 0) == 0 &&
        fnmatch(entry.case_glob.c_str(), case_name.c_str(), 0) == 0) {
      return &entry;
    }
  }
  return nullptr;
}

}  // namespace halo::cts
