// The layout of libhalo's status objects, private to libhalo (DESIGN.md §2.5).
//
// Every status libhalo makes starts with a magic word, so a status that a
// plugin made itself (a pointer to its own struct instead of one from the
// host interface) is recognised wherever libhalo receives a status, rather
// than read as ours and passed to free().
#pragma once

#include <cstddef>
#include <cstdint>

#include "halo/status.h"

struct halo_status_s {
  // kStatusMagic while the status lives; cleared when it is freed.
  uint32_t magic;
  halo_status_code_t code;
  size_t length;
  char message[1];
};

namespace halo::loader {

// "HSt1": arbitrary, but unlikely as the first word of a plugin's own struct
// (a status code, a small length or a pointer's low half).
inline constexpr uint32_t kStatusMagic = 0x48537431u;

// True when |status| (not NULL) is a status libhalo made. Reads only the
// first word, which any object a plugin could pass off as a status has.
inline bool is_libhalo_status(halo_status_t status) {
  return status->magic == kStatusMagic;
}

}  // namespace halo::loader
