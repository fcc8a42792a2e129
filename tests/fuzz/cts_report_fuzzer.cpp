// halo-cts reports (cts/runner/report.cpp) of outcomes whose texts come
// from the plugin under test: a case's reason and the worker's output may
// hold any bytes, yet the JUnit file must stay well-formed XML 1.0 in
// UTF-8 (CI systems, and scripts/test.sh, parse it) and every JSON line
// must parse. The escaping and cutting of such text (report_text.hpp) is
// also checked on its own: escaped text is XML in either context, and a
// cut of well-formed UTF-8 is well-formed UTF-8.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_input_file.hpp"
#include "report.hpp"
#include "report_text.hpp"

namespace {

// Decodes one UTF-8 character at |at|; false for a malformed sequence.
bool next_code_point(const std::string& text, size_t* at, uint32_t* out) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(text[i]);
  };
  unsigned char first = byte(*at);
  size_t length = first < 0x80 ? 1 : (first >> 5) == 6 ? 2
                : (first >> 4) == 14 ? 3 : (first >> 3) == 30 ? 4 : 0;
  if (length == 0 || *at + length > text.size()) return false;
  uint32_t value = length == 1 ? first : first & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(*at + i) & 0xC0) != 0x80) return false;
    value = (value << 6) | (byte(*at + i) & 0x3F);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kSmallest[length] || value > 0x10FFFF ||
      (value >= 0xD800 && value <= 0xDFFF)) {
    return false;
  }
  *at += length;
  *out = value;
  return true;
}

// XML 1.0's Char production, over UTF-8.
bool is_xml_text(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    uint32_t c;
    if (!next_code_point(text, &at, &c)) return false;
    bool allowed = c == 0x9 || c == 0xA || c == 0xD ||
                   (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
                   c >= 0x10000;
    if (!allowed) return false;
  }
  return true;
}

bool is_utf8(const std::string& text) {
  uint32_t c;
  for (size_t at = 0; at < text.size();) {
    if (!next_code_point(text, &at, &c)) return false;
  }
  return true;
}

// The escaping and the cuts of report_text.hpp on |text|, with |limit| as
// the length of a cut.
void check_report_text(const std::string& text, size_t limit) {
  using halo::cts::XmlContext;
  const std::string in_text = halo::cts::xml_escape(text);
  HALO_FUZZ_CHECK(is_xml_text(in_text));
  HALO_FUZZ_CHECK(in_text.find_first_of("<\r") == std::string::npos);
  const std::string in_attribute = halo::cts::xml_escape(text, XmlContext::kAttribute);
  HALO_FUZZ_CHECK(is_xml_text(in_attribute));
  HALO_FUZZ_CHECK(in_attribute.find_first_of("<\"\t\n\r") == std::string::npos);
  // Every '&' starts one of the references the escaping writes.
  for (size_t at = in_attribute.find('&'); at != std::string::npos;
       at = in_attribute.find('&', at + 1)) {
    bool known = false;
    for (const char* ref : {"&amp;", "&lt;", "&gt;", "&quot;", "&#9;", "&#10;", "&#13;"}) {
      known |= in_attribute.compare(at, std::strlen(ref), ref) == 0;
    }
    HALO_FUZZ_CHECK(known);
  }

  // A cut keeps an end of the text, at most |limit| bytes of it and
  // dropping no more than the rest of one character.
  const std::string_view suffix = halo::cts::utf8_suffix(text, limit);
  const std::string_view prefix = halo::cts::utf8_prefix(text, limit);
  HALO_FUZZ_CHECK(suffix.size() <= limit || suffix.size() == text.size());
  HALO_FUZZ_CHECK(prefix.size() <= limit || prefix.size() == text.size());
  HALO_FUZZ_CHECK(std::string_view(text).ends_with(suffix));
  HALO_FUZZ_CHECK(std::string_view(text).starts_with(prefix));
  const size_t kept = std::min(limit, text.size());
  HALO_FUZZ_CHECK(suffix.size() + 3 >= kept && prefix.size() + 3 >= kept);
  if (is_utf8(text)) {
    HALO_FUZZ_CHECK(is_utf8(std::string(suffix)));
    HALO_FUZZ_CHECK(is_utf8(std::string(prefix)));
  }
  const std::string quoted = halo::cts::quoted_tail(text, limit);
  HALO_FUZZ_CHECK(quoted == text || quoted == "…" + std::string(suffix));
}

std::string read_all(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(stream),
                     std::istreambuf_iterator<char>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const halo_fuzz::FuzzInputFile junit("results.xml");
  static const halo_fuzz::FuzzInputFile json_lines("results.jsonl");
  static const char* const kStatuses[] = {"PASS", "FAIL", "SKIP", "CRASH",
                                          "TIMEOUT", "XFAIL", "XPASS"};
  FuzzedDataProvider input(data, size);
  const size_t limit = input.ConsumeIntegralInRange<size_t>(0, 64);
  check_report_text(input.ConsumeRandomLengthString(256), limit);
  std::vector<halo::cts::Outcome> outcomes(input.ConsumeIntegralInRange(1, 3));
  for (halo::cts::Outcome& o : outcomes) {
    o.plugin = input.ConsumeRandomLengthString(64);
    o.device = input.ConsumeRandomLengthString(64);
    o.case_name = input.ConsumeRandomLengthString(64);
    o.status = input.PickValueInArray(kStatuses);
    o.reason = input.ConsumeRandomLengthString(512);
    o.command = input.ConsumeRandomLengthString(128);
    o.duration_s = input.ConsumeFloatingPoint<double>();
    o.seed = input.ConsumeIntegral<uint64_t>();
    o.repetition = input.ConsumeIntegral<int>();
    // Earlier failed attempts (--rerun-failures), with output of their own.
    o.failed_attempts.resize(input.ConsumeIntegralInRange(0, 2));
    for (halo::cts::FailedAttempt& attempt : o.failed_attempts) {
      attempt.status = input.PickValueInArray(kStatuses);
      attempt.reason = input.ConsumeRandomLengthString(128);
      attempt.output = input.ConsumeRandomLengthString(512);
      attempt.duration_s = input.ConsumeFloatingPoint<double>();
    }
  }
  // The worker's output, which the JUnit file quotes the end of.
  outcomes.back().output = input.ConsumeRemainingBytesAsString();

  halo::cts::RunInfo info;
  info.host = outcomes.front().device;  // Any bytes, as a host name might be.
  info.peer = outcomes.front().case_name;
  info.filters = {outcomes.front().reason};
  halo::cts::Reports reports(json_lines.path(), junit.path(), info);
  reports.start();
  halo::cts::Counts counts;
  for (const halo::cts::Outcome& o : outcomes) {
    reports.add(o);
    counts.add(o);
  }
  reports.finish(counts, 1);
  HALO_FUZZ_CHECK(reports.failed_paths().empty());
  HALO_FUZZ_CHECK(is_xml_text(read_all(junit.path())));
  std::ifstream lines(json_lines.path());
  std::string line;
  size_t count = 0;
  while (std::getline(lines, line)) {
    HALO_FUZZ_CHECK(nlohmann::json::accept(line));
    ++count;
  }
  // The run record, a record per outcome, the end record.
  HALO_FUZZ_CHECK(count == outcomes.size() + 2);
  return 0;
}
