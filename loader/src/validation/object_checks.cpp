#include "object_checks.hpp"

#include <cstdio>

#include "../check.hpp"
#include "command_accesses.hpp"
#include "object_table.hpp"
#include "report.hpp"
#include "submission_tracker.hpp"

namespace halo::loader::validation {
namespace {

// The tombstone at |object|, if its address holds one.
std::optional<ObjectInfo> tombstone_at(const void* object) noexcept {
  if (object == nullptr) return std::nullopt;
  std::optional<ObjectInfo> info = lookup(object);
  if (!info.has_value() || !info->released) return std::nullopt;
  return info;
}

// Counts a public retain (|delta| 1) or release (-1); reports one that must
// not go ahead.
bool count_reference(halo_object_t* object, int delta,
                     const char* function) noexcept {
  if (object == nullptr) return true;
  ObjectInfo info;
  const ReferenceCheck check =
      count_application_reference(object, delta, &info);
  if (check == ReferenceCheck::kUntracked ||
      check == ReferenceCheck::kCounted) {
    return true;
  }
  const char* what =
      check == ReferenceCheck::kReleased
          ? "was released"
          : "is still alive, but the application holds no reference to it "
            "(every one it had was released)";
  report(*info.settings,
         format("%s: %s %p (created by %s) %s; this %s is ignored", function,
                object_type_name(info.type), static_cast<const void*>(object),
                info.creator, what,
                delta > 0 ? "retain" : "release (a double release)"));
  return false;
}

}  // namespace

halo_status_t check_released(const void* object, const char* function,
                             const char* argument) noexcept {
  std::optional<ObjectInfo> info = tombstone_at(object);
  if (!info.has_value()) return nullptr;
  return report_status(
      *info->settings, HALO_STATUS_INVALID_ARGUMENT,
      format("%s: %s (%s %p created by %s) was released", function, argument,
             object_type_name(info->type), object, info->creator));
}

halo_status_t check_released_element(const void* object, const char* function,
                                     const char* array, size_t index) noexcept {
  if (!tombstone_at(object).has_value()) return nullptr;
  char argument[96];
  std::snprintf(argument, sizeof(argument), "%s[%zu]", array, index);
  return check_released(object, function, argument);
}

bool may_retain(halo_object_t* object, const char* function) noexcept {
  return count_reference(object, 1, function);
}

bool may_release(halo_object_t* object, const char* function) noexcept {
  return count_reference(object, -1, function);
}

void on_last_release(halo_object_t* object) noexcept {
  if (!mark_released(object)) return;
  if (object->vtable != nullptr &&
      object->vtable->type == HALO_OBJECT_TYPE_COMMAND_BUFFER) {
    forget_command_buffer(object);
  }
}

void report_leaks(const RegistryValidation& settings) noexcept {
  const auto live = live_objects_of(&settings);
  if (live.empty()) return;
  std::string text = format(
      "halo_registry_release: %zu object(s) of the registry are still alive "
      "(leaked):",
      live.size());
  try {
    for (const auto& [address, info] : live) {
      text += format("\n  %s %p created by %s", object_type_name(info.type),
                     address, info.creator);
    }
  } catch (...) {
    // Out of memory: the count alone is reported.
  }
  report(settings, text);
}

}  // namespace halo::loader::validation
