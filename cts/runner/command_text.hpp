// Command lines as halo-cts prints them: each one, pasted into a shell,
// repeats exactly what it describes (the reproduce lines, the reports'
// commands).
#pragma once

#include <charconv>
#include <string>

#include "options.hpp"

namespace halo::cts {

// |text| as one shell word: as it is when nothing in it is special to a
// shell, else in single quotes.
inline std::string shell_quote(const std::string& text) {
  if (text.find_first_of(" \t'\"\\$*?[]&;|<>()") == std::string::npos &&
      !text.empty()) {
    return text;
  }
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// |seconds| as the shortest decimal that reads back as the same double
// ("0.25", "60"), so a printed command reproduces the run exactly.
inline std::string format_seconds(double seconds) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof(text), seconds);
  return std::string(text, result.ptr);
}

// The --device, --peer, --manifest and --sanitize arguments that reproduce
// |options|' choice ("" for the defaults).
inline std::string target_arguments(const Options& options) {
  std::string text;
  if (options.device != 0) text += " --device " + std::to_string(options.device);
  if (!options.peer.empty()) text += " --peer " + shell_quote(options.peer);
  if (!options.manifest.empty()) text += " --manifest " + shell_quote(options.manifest);
  if (!options.sanitize.empty()) text += " --sanitize " + shell_quote(options.sanitize);
  if (!options.sanitizer_runtime.empty()) {
    text += " --sanitizer-runtime " + shell_quote(options.sanitizer_runtime);
  }
  return text;
}

}  // namespace halo::cts
