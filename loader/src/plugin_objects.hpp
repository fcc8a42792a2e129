// Objects that cross from a plugin into libhalo (DESIGN.md §6, "each plugin
// fails alone"). Each driver, device, semaphore, buffer, command buffer and
// executable a plugin creates is checked once, where it is handed over: a
// vtable, the right type tag, at least ABI 1.0's size and every required
// entry. The public API then calls required entries without checking them
// again, and an object that fails is refused, never called into.
#pragma once

#include "halo/object.h"
#include "halo/status.h"

namespace halo::loader {

// Returns NULL when |object| (not NULL), just created by a plugin, is a
// usable |type|; else INTERNAL saying what is wrong, e.g. "the device's
// vtable lacks query_info".
halo_status_t object_defect(const halo_object_t* object,
                            halo_object_type_t type);

// Gives a refused object back to its plugin: releases it when its destroy
// can be called (a vtable with a header and a destroy), and otherwise leaves
// it, as nothing else can be done with it safely.
void discard_object(halo_object_t* object) noexcept;

// Checks the object |*out_object| that the plugin entry |create| (at |code|)
// returned OK with. Returns NULL to keep it; else discards it, sets
// |*out_object| to NULL and returns INTERNAL "|function|: plugin '<name>'
// returned a broken <type>: <defect>". A kept object is attributed to
// |parent| (the driver or device it came from) for validation.
halo_status_t adopt_object(const char* function, const void* code,
                           halo_object_type_t type, const void* parent,
                           halo_object_t** out_object);

// adopt_object for a typed handle (halo_device_t**, …).
template <typename Handle>
halo_status_t adopt_created(const char* function, const void* code,
                            halo_object_type_t type, const void* parent,
                            Handle** out_object) {
  auto* object = reinterpret_cast<halo_object_t*>(*out_object);
  halo_status_t status = adopt_object(function, code, type, parent, &object);
  *out_object = reinterpret_cast<Handle*>(object);
  return status;
}

}  // namespace halo::loader
