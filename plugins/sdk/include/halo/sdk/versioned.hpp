// Copying versioned structs out to a caller that may be older or newer than
// the plugin (DESIGN.md §2.2): the caller's struct_size decides how much is
// written, and is then set to what was written.
#ifndef HALO_SDK_VERSIONED_HPP_
#define HALO_SDK_VERSIONED_HPP_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "halo/device.h"
#include "halo/driver.h"
#include "halo/sdk/host.hpp"

namespace halo::sdk {

// Copies the first min(|out|->struct_size, sizeof(T)) bytes of |full| into
// |out| and records that size. Returns INVALID_ARGUMENT
// "|function|: |argument| is NULL or its struct_size … is too small" when
// |out| is NULL or its struct_size cannot hold struct_size itself; |function|
// is the public call (halo_device_query_info) and |argument| its parameter
// (out_info). Borrows everything.
template <class T>
halo_status_t copy_versioned(Host host, const T& full, T* out,
                             const char* function,
                             const char* argument) noexcept {
  if (out == nullptr || out->struct_size < sizeof(uint32_t)) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s is NULL or its struct_size %u is too "
                            "small",
                            function, argument,
                            out == nullptr ? 0u : out->struct_size);
  }
  const uint32_t size =
      std::min<uint32_t>(out->struct_size, static_cast<uint32_t>(sizeof(T)));
  std::memcpy(static_cast<void*>(out), &full, size);
  out->struct_size = size;
  return HALO_OK;
}

// A driver's query_info: describes the driver as |name| (the plugin's name),
// |version| and |description| (each truncated to its field) and copies that
// into |out_info| as copy_versioned does, for halo_driver_query_info.
halo_status_t copy_driver_info(Host host, const char* name,
                               const char* version, const char* description,
                               halo_driver_info_t* out_info) noexcept;

// A driver's enumerate_devices over its |count| devices, whose infos
// |info_of(i)| returns (a const halo_device_info_t&, i < count): stores
// |count| in |*out_count| and copies the first min(|capacity|, |count|)
// infos into |out_infos|, one every |info_stride| bytes, each filled up to
// min(|info_stride|, sizeof(halo_device_info_t)) with struct_size set to
// that. |capacity| 0 or NULL |out_infos| asks for the count only.
// libhalo passes a non-NULL |out_count| and an |info_stride| of its own
// sizeof(halo_device_info_t) (at least 4), so neither is checked here.
template <class InfoOf>
void enumerate_device_infos(size_t count, InfoOf&& info_of, size_t capacity,
                            size_t info_stride, halo_device_info_t* out_infos,
                            size_t* out_count) noexcept {
  *out_count = count;
  if (capacity == 0 || out_infos == nullptr) return;
  assert(info_stride >= sizeof(uint32_t));
  const size_t size = std::min(info_stride, sizeof(halo_device_info_t));
  auto* bytes = reinterpret_cast<unsigned char*>(out_infos);
  for (size_t i = 0; i < std::min(capacity, count); ++i) {
    unsigned char* out = bytes + i * info_stride;
    const halo_device_info_t& info = info_of(i);
    std::memcpy(out, &info, size);
    const uint32_t struct_size = static_cast<uint32_t>(size);
    std::memcpy(out + offsetof(halo_device_info_t, struct_size), &struct_size,
                sizeof(struct_size));
  }
}

}  // namespace halo::sdk

#endif  // HALO_SDK_VERSIONED_HPP_
