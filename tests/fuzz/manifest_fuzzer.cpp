// The plugin manifest reader (loader/src/manifest.cpp) on any file
// contents: a manifest or an INVALID_ARGUMENT status naming the file,
// never a crash, a hang, a leak or an exception.
#include <cstring>
#include <new>

#include "fuzz_check.hpp"
#include "fuzz_input_file.hpp"
#include "manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const halo_fuzz::FuzzInputFile file("plugin.json");
  file.write(data, size);
  halo::loader::Manifest manifest;
  halo_status_t status = nullptr;
  try {
    status = halo::loader::read_manifest(file.path(), &manifest);
  } catch (const std::bad_alloc&) {
    return 0;  // Documented: the reader throws std::bad_alloc.
  }
  if (status == nullptr) {
    HALO_FUZZ_CHECK(!manifest.name.empty());
    HALO_FUZZ_CHECK(!manifest.library_path.empty());
    return 0;
  }
  HALO_FUZZ_CHECK(halo_status_code(status) == HALO_STATUS_INVALID_ARGUMENT);
  HALO_FUZZ_CHECK(std::strstr(halo_status_message(status),
                              file.path().c_str()) != nullptr);
  halo_status_free(status);
  return 0;
}
