// The cpu plugin's check of cpu-so bytes (plugins/cpu/elf_image.cpp), run
// before dlopen sees them: OK or an INVALID_ARGUMENT status naming
// halo_executable_create, never a crash, a hang or a leak. (What dlopen
// then does with accepted bytes is not fuzzed here: it runs the library's
// code.)
#include <cstring>

#include "elf_image.hpp"
#include "fuzz_check.hpp"
#include "testing/fake_host.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  halo::sdk::testing::StatusHolder status(halo::cpu::check_elf_image(
      halo::sdk::testing::fake_host(), data, size));
  if (status.get() == nullptr) return 0;
  HALO_FUZZ_CHECK(status.code() == HALO_STATUS_INVALID_ARGUMENT);
  HALO_FUZZ_CHECK(status.message().rfind("halo_executable_create: params->data",
                                         0) == 0);
  return 0;
}
