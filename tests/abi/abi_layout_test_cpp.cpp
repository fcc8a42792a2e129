// The ABI layout checks compiled as C++20: a C++ application or plugin must
// see exactly the layout a C one sees. The static assertions run at compile
// time; the function below adds what only runs at run time.
#include <type_traits>

#include "abi_layout.h"

// Every struct crossing the boundary must be usable from C++ as plain data.
static_assert(std::is_standard_layout_v<halo_object_t>);
static_assert(std::is_trivially_copyable_v<halo_device_info_t>);
static_assert(std::is_trivially_copyable_v<halo_device_capabilities_t>);
static_assert(std::is_trivially_copyable_v<halo_plugin_record_t>);
static_assert(std::is_trivially_copyable_v<halo_host_interface_t>);
static_assert(std::is_trivially_copyable_v<halo_timepoint_t>);
static_assert(std::is_same_v<halo_status_t, struct halo_status_s*>);

extern "C" int halo_abi_layout_cpp_checks(void);

extern "C" int halo_abi_layout_cpp_checks(void) {
  int failures = 0;
  // HALO_OK is a null status in C++ too.
  if (HALO_OK != nullptr) {
    ++failures;
  }
  constexpr halo_object_t header = HALO_OBJECT_HEADER_INIT(nullptr);
  if (header.ref_count != 1u) {
    ++failures;
  }
  return failures;
}
