// The vulkan plugin's SPIR-V reader (plugins/vulkan/spirv_reader.cpp) on
// any bytes handed to halo_executable_create: entry points or a reason,
// never a crash, a hang or a leak.
#include <cstring>
#include <new>

#include "fuzz_check.hpp"
#include "spirv_reader.hpp"
#include "testing/fake_host.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  halo::sdk::Host host = halo::sdk::testing::fake_host();
  halo::vk::SpirvEntryPoints points{
      halo::sdk::HostAllocator<halo::vk::SpirvEntryPoint>(host)};
  halo::vk::ErrorText error;
  bool read = false;
  try {
    read = halo::vk::reflect_spirv(host, data, size, &points, &error);
  } catch (const std::bad_alloc&) {
    return 0;  // Documented: the reader throws std::bad_alloc.
  }
  if (!read) {
    HALO_FUZZ_CHECK(std::memchr(error.text, '\0', sizeof(error.text)));
    HALO_FUZZ_CHECK(error.text[0] != '\0');
    return 0;
  }
  HALO_FUZZ_CHECK(!points.empty());
  for (const halo::vk::SpirvEntryPoint& point : points) {
    HALO_FUZZ_CHECK(std::memchr(point.name, '\0', sizeof(point.name)));
  }
  return 0;
}
