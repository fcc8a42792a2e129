// Ties libhalo's ABI 1.0 minimum sizes (loader/src/abi_1_0_sizes.hpp) to ABI
// 1.0 itself: this file is compiled against the frozen 1.0 headers of
// tests/abi_compat/abi_1_0 only, where each struct ends with its last 1.0
// member, so each size must be exactly that struct's sizeof. A listed member
// that is not the last of 1.0, or a 1.0 member that moved, breaks the build.
#include "abi_1_0_sizes.hpp"

static_assert(HALO_ABI_VERSION_MAJOR == 1 && HALO_ABI_VERSION_MINOR == 0,
              "compile this file against the frozen ABI 1.0 headers");

#define HALO_CHECK_ABI_1_0_SIZE_(type, last_member)          \
  static_assert(halo::loader::abi_1_0_size<type> == sizeof(type), \
                #type " ends with " #last_member " in ABI 1.0");
HALO_ABI_1_0_STRUCTS(HALO_CHECK_ABI_1_0_SIZE_)
#undef HALO_CHECK_ABI_1_0_SIZE_
