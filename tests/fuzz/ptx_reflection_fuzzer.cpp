// The cuda plugin's PTX reflection (plugins/cuda/ptx_reflection.cpp and
// ptx_mangled_name.cpp) on any bytes handed to halo_executable_create:
// entry points that keep the rules of ptx_reflection.hpp, or a reason in
// printable ASCII; never a crash, a hang or a leak.
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>

#include "fuzz_check.hpp"
#include "ptx_mangled_name.hpp"
#include "ptx_reflection.hpp"

namespace {

using halo::cuda::PtxEntry;
using halo::cuda::PtxParameter;
using halo::cuda::PtxReflection;

bool is_printable(const std::string& text) {
  for (const char c : text) {
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

void check_entry(const PtxEntry& entry, std::string_view text) {
  HALO_FUZZ_CHECK(!entry.name.empty());
  // The symbol is one of the text's, so cuModuleGetFunction can find it.
  HALO_FUZZ_CHECK(text.find(entry.name) != std::string_view::npos);
  HALO_FUZZ_CHECK(!entry.display_name.empty());
  HALO_FUZZ_CHECK(entry.display_name.size() <= halo::cuda::kPtxMaxNameLength);
  HALO_FUZZ_CHECK(entry.parameters.size() <= halo::cuda::kPtxMaxParameters);
  bool seen_scalar = false;
  for (const PtxParameter& p : entry.parameters) {
    HALO_FUZZ_CHECK(!p.ptx_name.empty());
    if (p.kind == PtxParameter::Kind::kPointer) {
      HALO_FUZZ_CHECK(!seen_scalar);  // bindings first
      HALO_FUZZ_CHECK(p.size == 8);
    } else {
      seen_scalar = true;
      HALO_FUZZ_CHECK(p.size == 4 || p.size == 8);
    }
  }
  const uint32_t* size = entry.workgroup_size;
  const bool none = size[0] == 0 && size[1] == 0 && size[2] == 0;
  HALO_FUZZ_CHECK(none || (size[0] != 0 && size[1] != 0 && size[2] != 0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const PtxReflection reflection = halo::cuda::reflect_ptx(data, size);
  if (!reflection.error.empty()) {
    HALO_FUZZ_CHECK(reflection.entries.empty());
    HALO_FUZZ_CHECK(is_printable(reflection.error));
  } else {
    HALO_FUZZ_CHECK(reflection.entries.size() <= halo::cuda::kPtxMaxEntries);
    const char* text = reinterpret_cast<const char*>(data);
    const void* nul = size == 0 ? nullptr : std::memchr(text, '\0', size);
    const std::string_view read(
        text, nul ? static_cast<size_t>(static_cast<const char*>(nul) - text)
                  : size);
    std::unordered_set<std::string> names;
    std::unordered_set<std::string> display_names;
    for (const PtxEntry& entry : reflection.entries) {
      check_entry(entry, read);
      HALO_FUZZ_CHECK(names.insert(entry.name).second);
      HALO_FUZZ_CHECK(display_names.insert(entry.display_name).second);
    }
  }

  // The demangler on the bytes themselves, which reflection hands it only
  // as PTX identifiers.
  halo::cuda::DemangledKernelName name;
  const std::string why = halo::cuda::demangle_kernel_name(
      std::string_view(reinterpret_cast<const char*>(data), size), &name);
  if (why.empty()) {
    HALO_FUZZ_CHECK(size >= 2 && data[0] == '_' && data[1] == 'Z');
    HALO_FUZZ_CHECK(!name.display_name.empty());
  } else {
    HALO_FUZZ_CHECK(is_printable(why));
  }
  return 0;
}
