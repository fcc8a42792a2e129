// A sanitizer's report in a worker's output (halo-cts --sanitize). A report
// does not always end the worker with a telling status (ThreadSanitizer
// goes on by default, a plugin may catch the exit), so the runner reads the
// output itself: any report fails the case, quoted in its reason.
#pragma once

#include <string>
#include <string_view>

namespace halo::cts {

// Returns the report's first line, without its "==PID==" prefix, and its
// SUMMARY line when it has one ("AddressSanitizer: heap-use-after-free on
// address … (SUMMARY: AddressSanitizer: heap-use-after-free x.c:12 in f)"),
// or "" when |output| holds no report of AddressSanitizer, LeakSanitizer,
// ThreadSanitizer or UndefinedBehaviorSanitizer.
inline std::string sanitizer_report(std::string_view output) {
  // UBSan's line starts with the place ("x.c:12:3: runtime error: …"), so
  // it is quoted whole; the others from their tool's name on.
  static constexpr struct {
    std::string_view marker;
    size_t quote_from;  // Offset into the marker where the quote starts.
  } kHeadlines[] = {{"ERROR: AddressSanitizer:", 7},
                    {"ERROR: LeakSanitizer:", 7},
                    {"WARNING: ThreadSanitizer:", 9},
                    {"ERROR: ThreadSanitizer:", 7},
                    {": runtime error: ", std::string_view::npos}};
  size_t first = std::string_view::npos, quote = 0;
  for (const auto& headline : kHeadlines) {
    const size_t at = output.find(headline.marker);
    if (at >= first) continue;
    first = at;
    const size_t line = output.rfind('\n', at);
    quote = headline.quote_from == std::string_view::npos
                ? (line == std::string_view::npos ? 0 : line + 1)
                : at + headline.quote_from;
  }
  if (first == std::string_view::npos) return {};
  const auto line_at = [&](size_t begin) {
    const size_t end = output.find('\n', begin);
    return std::string(output.substr(begin, end == std::string_view::npos ? end : end - begin));
  };
  std::string text = line_at(quote);
  const size_t summary = output.find("SUMMARY: ", first);
  if (summary != std::string_view::npos) text += " (" + line_at(summary) + ")";
  return text;
}

}  // namespace halo::cts
