// What a halo-cts worker prints (cts/runner/verdict.hpp,
// bounded_output.hpp): the plugin under test shares the worker's output,
// so the runner must take any bytes. The verdict line parses or is refused
// with a reason; the kept output is bounded and keeps both ends.
#include <algorithm>
#include <string>
#include <string_view>

#include "bounded_output.hpp"
#include "fuzz_check.hpp"
#include "verdict.hpp"

namespace {

void check_verdict(std::string_view line) {
  halo::cts::Verdict verdict;
  std::string error;
  if (!halo::cts::parse_verdict(line, &verdict, &error)) {
    HALO_FUZZ_CHECK(!error.empty());
    return;
  }
  HALO_FUZZ_CHECK(verdict.status == "PASS" || verdict.status == "FAIL" ||
                  verdict.status == "SKIP");
  // A verdict survives the round trip through the worker's formatter.
  halo::cts::Verdict again;
  HALO_FUZZ_CHECK(halo::cts::parse_verdict(
      halo::cts::format_verdict(verdict.status, verdict.reason), &again,
      &error));
  HALO_FUZZ_CHECK(again.status == verdict.status);
}

// Feeds |input| repeated (up to a few hundred KiB, past what the output
// keeps) in reads of a size its first byte chooses, as a pipe would
// deliver a flooding worker's output.
void check_bounded_output(std::string_view input) {
  using halo::cts::BoundedOutput;
  constexpr size_t kMaxStream = 3 * (BoundedOutput::kHeadBytes +
                                     BoundedOutput::kTailBytes);
  size_t first = input.empty() ? 0 : static_cast<unsigned char>(input[0]);
  size_t repeats = std::min(1 + first * 64,
                            kMaxStream / std::max<size_t>(input.size(), 1));
  std::string text;
  for (size_t i = 0; i < std::max<size_t>(repeats, 1); ++i) text += input;
  BoundedOutput output;
  size_t chunk = 1 + first * 7;
  for (size_t at = 0; at < text.size(); at += chunk) {
    output.append(std::string_view(text).substr(at, chunk));
  }
  const std::string_view all(text);
  const size_t dropped = output.dropped_bytes();
  const std::string kept = output.take();
  if (all.size() <= BoundedOutput::kHeadBytes + BoundedOutput::kTailBytes) {
    HALO_FUZZ_CHECK(dropped == 0);
    HALO_FUZZ_CHECK(kept == all);
    return;
  }
  HALO_FUZZ_CHECK(dropped == all.size() - BoundedOutput::kHeadBytes -
                                 BoundedOutput::kTailBytes);
  const std::string_view kept_view(kept);
  HALO_FUZZ_CHECK(kept_view.substr(0, BoundedOutput::kHeadBytes) ==
                  all.substr(0, BoundedOutput::kHeadBytes));
  HALO_FUZZ_CHECK(kept.size() >= BoundedOutput::kTailBytes &&
                  kept_view.substr(kept.size() - BoundedOutput::kTailBytes) ==
                      all.substr(all.size() - BoundedOutput::kTailBytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check_verdict(text.substr(0, text.find('\n')));
  check_bounded_output(text);
  return 0;
}
