// Validation of object lifetimes: use after release, double release, and
// objects a registry leaves alive (leaks).
#pragma once

#include <cstddef>

#include "halo/object.h"
#include "halo/status.h"
#include "switch.hpp"

namespace halo::loader::validation {

// Returns INVALID_ARGUMENT "|function|: |argument| (<type> created by
// <creator>) was released" (reported) when |object| is a tombstoned address;
// else NULL. Reads only libhalo's table, never the object.
halo_status_t check_released(const void* object, const char* function,
                             const char* argument) noexcept;

// check_released for element |index| of the array argument |array|, named
// "|array|[|index|]": for the lists whose bad elements get one message.
halo_status_t check_released_element(const void* object, const char* function,
                                     const char* array, size_t index) noexcept;

// For the public retain and release calls, which count the application's
// references: false (after reporting "|function|: … was released") when
// |object| is a tombstoned address, or, for a release, when the application
// holds no reference to the live object; the object must then not be
// touched.
bool may_retain(halo_object_t* object, const char* function) noexcept;
bool may_release(halo_object_t* object, const char* function) noexcept;

// Called by both release paths (public and host interface) when |object|'s
// count reached zero, before its destroy: tombstones it and forgets what
// validation kept about it.
void on_last_release(halo_object_t* object) noexcept;

// Called when a validating registry is destroyed, after it released its
// drivers: reports every object of the registry that the application still
// holds, with its type and the call that created it.
void report_leaks(const RegistryValidation& settings) noexcept;

}  // namespace halo::loader::validation
