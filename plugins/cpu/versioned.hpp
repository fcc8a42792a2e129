// Copying a versioned struct out to a caller that may be older or newer.
#ifndef HALO_CPU_VERSIONED_HPP_
#define HALO_CPU_VERSIONED_HPP_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "halo/sdk/host.hpp"

namespace halo::cpu {

// Copies the first min(|out|->struct_size, sizeof(T)) bytes of |full| into
// |out| and records that size, as the ABI's versioned structs ask. Returns
// INVALID_ARGUMENT when |out| is NULL or too small to hold struct_size.
template <class T>
halo_status_t copy_versioned(sdk::Host host, const T& full, T* out) noexcept {
  if (out == nullptr || out->struct_size < sizeof(uint32_t)) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "output struct is NULL or its struct_size "
                                 "is too small");
  }
  uint32_t size =
      std::min<uint32_t>(out->struct_size, static_cast<uint32_t>(sizeof(T)));
  std::memcpy(out, &full, size);
  out->struct_size = size;
  return HALO_OK;
}

}  // namespace halo::cpu

#endif  // HALO_CPU_VERSIONED_HPP_
