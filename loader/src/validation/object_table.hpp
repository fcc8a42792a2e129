// The validation object table: every live object of a validating registry,
// by address, with its type, the call that created it and its registry's
// settings; and, for a bounded number of released ones, a tombstone kept
// until a new tracked creation reuses the address.
//
// Every member is noexcept: when memory runs out an object is simply not
// tracked (and a use after its release goes unreported), never a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "halo/object.h"
#include "switch.hpp"

namespace halo::loader::validation {

struct ObjectInfo {
  halo_object_type_t type = HALO_OBJECT_TYPE_NONE;
  // The public call that created it ("halo_semaphore_create"); static text.
  const char* creator = "";
  std::shared_ptr<const RegistryValidation> settings;
  bool released = false;
  // Creation order, for reports that list objects.
  uint64_t serial = 0;
  // References the application holds: one from the creation, plus public
  // retains, minus public releases. A plugin's own references (through the
  // host interface) and validation's are not counted, so an object that
  // in-flight work still holds is not a leak, and a release beyond these is
  // a double release even while the object lives on.
  int64_t application_references = 0;
};

// What a public retain or release of an object may do.
enum class ReferenceCheck {
  kUntracked,     // Not a tracked object: go ahead.
  kCounted,       // Tracked and counted: go ahead.
  kReleased,      // A tombstone: the object is gone; do not touch it.
  kOverReleased,  // Live, but the application holds no reference to drop.
};

// Tracks |object| of |type|, just created by |creator|, for the registry of
// |settings| (not NULL).
void track(const void* object, halo_object_type_t type, const char* creator,
           std::shared_ptr<const RegistryValidation> settings) noexcept;

// Counts a public retain (|delta| 1) or release (-1) of |object|; fills
// |*out_info| unless kUntracked.
ReferenceCheck count_application_reference(const void* object, int delta,
                                           ObjectInfo* out_info) noexcept;

// Tracks |object| for |settings| when not NULL; otherwise drops any
// tombstone at its address (the address now names a live, untracked object).
void on_created_for(std::shared_ptr<const RegistryValidation> settings,
                    const void* object, halo_object_type_t type,
                    const char* creator) noexcept;

// Called for every object created through the public API while enabled():
// tracks |object| when |parent| (the driver or device it came from) is
// tracked, and drops any tombstone at its address either way (the address now
// names a live object).
void on_created(const void* parent, const void* object,
                halo_object_type_t type, const char* creator) noexcept;

// The entry at |object|'s address, live or tombstoned, if any.
std::optional<ObjectInfo> lookup(const void* object) noexcept;

// The settings of the registry |object| (live) is attributed to, or NULL.
std::shared_ptr<const RegistryValidation> settings_of(
    const void* object) noexcept;

// Turns the live entry at |object| into a tombstone, as its reference count
// reached zero. Returns whether it was tracked.
bool mark_released(const void* object) noexcept;

// The live objects attributed to |settings| that the application still
// holds, oldest first, as (address, info).
std::vector<std::pair<const void*, ObjectInfo>> live_objects_of(
    const RegistryValidation* settings) noexcept;

// "semaphore 0x… (created by halo_semaphore_create)" for a tracked |object|,
// or "<type name> 0x…" for another.
std::string describe(const void* object, halo_object_type_t type) noexcept;

}  // namespace halo::loader::validation
