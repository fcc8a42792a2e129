// The two ways into reference counting (object.cpp): the public retain and
// release calls, which validation checks, and libhalo's and the plugins' own
// (through the host interface), which it does not: a plugin's internal
// objects are untracked, and their addresses may match a released object's.
#pragma once

#include "halo/object.h"

namespace halo::loader {

// Unchecked retain and release. Both release paths tombstone a tracked object
// whose count reaches zero.
void retain_object(halo_object_t* object) noexcept;
void release_object(halo_object_t* object) noexcept;

// The public calls, named |function| in a report: a retain or release of a
// released object is reported and does nothing while validation is on.
void retain_checked(halo_object_t* object, const char* function) noexcept;
void release_checked(halo_object_t* object, const char* function) noexcept;

}  // namespace halo::loader
