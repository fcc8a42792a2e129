// halo/sdk/versioned.hpp: the driver info every plugin reports the same way.
#include "halo/sdk/versioned.hpp"

#include <cstdio>

namespace halo::sdk {
namespace {

// Copies |text| into the fixed-size field |out|, always NUL-terminated.
template <size_t N>
void copy_text(char (&out)[N], const char* text) noexcept {
  std::snprintf(out, N, "%s", text != nullptr ? text : "");
}

}  // namespace

halo_status_t copy_driver_info(Host host, const char* name,
                               const char* version, const char* description,
                               halo_driver_info_t* out_info) noexcept {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  copy_text(info.name, name);
  copy_text(info.version, version);
  copy_text(info.description, description);
  return copy_versioned(host, info, out_info, "halo_driver_query_info",
                        "out_info");
}

}  // namespace halo::sdk
