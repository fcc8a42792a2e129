// No C++ exception crosses the C ABI (DESIGN.md §2.6): every HALO_API
// function of libhalo that returns a status is a function-try-block ending in
// HALO_API_CATCH_ALL, which turns whatever escaped its body into a status.
#pragma once

#include "halo/status.h"

namespace halo::loader {

// Called inside a catch handler: RESOURCE_EXHAUSTED "|function|: out of
// memory" for std::bad_alloc, otherwise INTERNAL "|function|: unexpected
// exception: <what>". Never throws.
halo_status_t status_from_current_exception(const char* function) noexcept;

}  // namespace halo::loader

// Ends a function-try-block of a HALO_API function:
//
//   halo_status_t halo_thing_do(...) try {
//     ...
//   }
//   HALO_API_CATCH_ALL
//
// __func__ names the C function, as every other message of the call does.
#define HALO_API_CATCH_ALL                                               \
  catch (...) {                                                          \
    return ::halo::loader::status_from_current_exception(__func__);      \
  }
