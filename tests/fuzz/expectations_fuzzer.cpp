// halo-cts expectation files (cts/runner/expectations.cpp) of any
// contents: entries, each with both globs and a reason, or an error naming
// the line; matching the entries against case names never crashes.
#include "expectations.hpp"
#include "fuzz_check.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const halo_fuzz::FuzzInputFile file("expectations.txt");
  file.write(data, size);
  std::vector<halo::cts::Expectation> entries;
  std::string error;
  if (!halo::cts::read_expectations(file.path(), &entries, &error)) {
    HALO_FUZZ_CHECK(error.rfind(file.path() + ":", 0) == 0);
    return 0;
  }
  for (const halo::cts::Expectation& entry : entries) {
    HALO_FUZZ_CHECK(!entry.plugin_glob.empty());
    HALO_FUZZ_CHECK(!entry.case_glob.empty());
    HALO_FUZZ_CHECK(!entry.reason.empty());
  }
  const halo::cts::Expectation* match = halo::cts::find_expectation(
      entries, "vulkan", "semaphore.threads.signal_wait_race");
  HALO_FUZZ_CHECK(match == nullptr || !match->reason.empty());
  return 0;
}
