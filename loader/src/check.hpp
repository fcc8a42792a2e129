// Argument checks shared by every public API wrapper: one place that turns a
// NULL or wrong-type handle into INVALID_ARGUMENT naming the call and the
// argument, never a crash.
#pragma once

#include <cstdint>
#include <cstring>

#include "halo/object.h"
#include "halo/status.h"
#include "validation/object_checks.hpp"
#include "validation/switch.hpp"

namespace halo::loader {

// Returns the readable name of a type tag ("semaphore").
const char* object_type_name(uint32_t type);

// Builds the INVALID_ARGUMENT status for an |object| that failed the check:
// NULL, no vtable, another type or a vtable smaller than ABI 1.0's.
halo_status_t bad_object(const void* object, halo_object_type_t type,
                         uint32_t min_vtable_size, const char* function,
                         const char* argument);

// Returns NULL when |object| is a live object of |type| with a vtable at least
// |min_vtable_size| bytes; else INVALID_ARGUMENT "|function|: |argument| …".
// Inline: every query, poll and signal passes through it, and the valid case
// is three loads and compares, plus validation's one branch. With validation
// on, a released object is recognised by its address before it is read.
inline halo_status_t check_object(const void* object, halo_object_type_t type,
                                  uint32_t min_vtable_size,
                                  const char* function, const char* argument) {
  if (validation::enabled()) [[unlikely]] {
    halo_status_t released =
        validation::check_released(object, function, argument);
    if (released != nullptr) return released;
  }
  if (object != nullptr) [[likely]] {
    const halo_object_vtable_t* vtable =
        static_cast<const halo_object_t*>(object)->vtable;
    if (vtable != nullptr && vtable->type == static_cast<uint32_t>(type) &&
        vtable->struct_size >= min_vtable_size) [[likely]] {
      return nullptr;
    }
  }
  return bad_object(object, type, min_vtable_size, function, argument);
}

// INVALID_ARGUMENT "|function|: |argument| is NULL".
halo_status_t null_argument(const char* function, const char* argument);

// Returns the vtable of a checked object, typed.
template <typename Vtable>
const Vtable* vtable_of(const void* object) {
  return reinterpret_cast<const Vtable*>(
      static_cast<const halo_object_t*>(object)->vtable);
}

// The halo_object_t of any handle.
inline halo_object_t* as_object(void* handle) {
  return static_cast<halo_object_t*>(handle);
}

// Copies into |destination| the members both sides know: the caller's
// struct_size (at least 4) decides how much, and is then set to what was
// written. Returns INVALID_ARGUMENT for a struct_size below 4.
template <typename T>
halo_status_t copy_out(const T& source, T* destination, const char* function) {
  if (destination->struct_size < sizeof(uint32_t)) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: out struct_size %u is too small", function,
                              destination->struct_size);
  }
  const uint32_t size = destination->struct_size < sizeof(T)
                            ? destination->struct_size
                            : static_cast<uint32_t>(sizeof(T));
  std::memcpy(static_cast<void*>(destination), &source, size);
  destination->struct_size = size;
  return nullptr;
}

// The error for a vtable entry a plugin left NULL.
halo_status_t unimplemented(const char* function, const char* what);

// INVALID_ARGUMENT "|function|: |argument| has unknown bits 0x…" for the
// bits of |flags| outside |known|.
halo_status_t unknown_flags(uint64_t flags, uint64_t known,
                            const char* function, const char* argument);

// Returns NULL when |flags| has no bit outside |known| (a header's
// *_FLAGS_KNOWN mask); else unknown_flags. A bit accepted today could never
// be given a meaning later, so none is ignored.
inline halo_status_t check_known_flags(uint64_t flags, uint64_t known,
                                       const char* function,
                                       const char* argument) {
  if ((flags & ~known) == 0) [[likely]] return nullptr;
  return unknown_flags(flags, known, function, argument);
}

}  // namespace halo::loader

// Returns from the calling function when |expression| yields a status.
#define HALO_RETURN_IF_ERROR(expression)          \
  do {                                            \
    halo_status_t halo_status_ = (expression);    \
    if (halo_status_ != nullptr) return halo_status_; \
  } while (0)
