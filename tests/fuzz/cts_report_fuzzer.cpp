// halo-cts reports (cts/runner/report.cpp) of outcomes whose texts come
// from the plugin under test: a case's reason and the worker's output may
// hold any bytes, yet the JUnit file must stay well-formed XML 1.0 in
// UTF-8 (CI systems, and scripts/test.sh, parse it) and every JSON line
// must parse.
#include <fuzzer/FuzzedDataProvider.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_input_file.hpp"
#include "report.hpp"

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
  }
  // The worker's output, which the JUnit file quotes the end of.
  outcomes.back().output = input.ConsumeRemainingBytesAsString();

  halo::cts::Reports reports(json_lines.path(), junit.path(), {});
  reports.start();
  for (const halo::cts::Outcome& o : outcomes) reports.add(o);
  HALO_FUZZ_CHECK(reports.failed_paths().empty());
  HALO_FUZZ_CHECK(is_xml_text(read_all(junit.path())));
  std::ifstream lines(json_lines.path());
  std::string line;
  size_t count = 0;
  while (std::getline(lines, line)) {
    HALO_FUZZ_CHECK(nlohmann::json::accept(line));
    ++count;
  }
  HALO_FUZZ_CHECK(count == outcomes.size());
  return 0;
}
