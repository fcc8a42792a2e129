#include "plugin_objects.hpp"

#include <cstddef>
#include <cstring>
#include <span>

#include "abi_1_0_sizes.hpp"
#include "check.hpp"
#include "halo/device.h"
#include "halo/driver.h"
#include "object_refs.hpp"
#include "plugin_status.hpp"
#include "validation/object_table.hpp"

namespace halo::loader {
namespace {

// One vtable entry that must not be NULL.
struct RequiredEntry {
  size_t offset;
  const char* name;
};

#define HALO_REQUIRED_ENTRY_(vtable, member) \
  RequiredEntry { offsetof(vtable, member), #member }

// destroy (common to all) is checked apart, so each list holds the entries
// after the header. Entries a header marks "may be NULL" are absent. All are
// ABI 1.0's, which every vtable's ABI 1.0 size covers; an entry appended
// later is never required, and is read only where the vtable's struct_size
// covers it.
constexpr RequiredEntry kDriverEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_driver_vtable_t, query_info),
    HALO_REQUIRED_ENTRY_(halo_driver_vtable_t, enumerate_devices),
    HALO_REQUIRED_ENTRY_(halo_driver_vtable_t, create_device),
};
constexpr RequiredEntry kDeviceEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, query_info),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, query_capabilities),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, create_semaphore),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, semaphore_compatibility),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, queue_execute),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, queue_flush),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, wait_semaphores),
    HALO_REQUIRED_ENTRY_(halo_device_vtable_t, wait_idle),
};
constexpr RequiredEntry kSemaphoreEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, query),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, signal),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, fail),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, wait),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, acquire_timepoint),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, cancel_timepoint),
    HALO_REQUIRED_ENTRY_(halo_semaphore_vtable_t, device),
};
constexpr RequiredEntry kBufferEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_buffer_vtable_t, size),
    HALO_REQUIRED_ENTRY_(halo_buffer_vtable_t, map_range),
    HALO_REQUIRED_ENTRY_(halo_buffer_vtable_t, unmap_range),
    HALO_REQUIRED_ENTRY_(halo_buffer_vtable_t, flush_range),
    HALO_REQUIRED_ENTRY_(halo_buffer_vtable_t, invalidate_range),
};
constexpr RequiredEntry kCommandBufferEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, begin),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, end),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, barrier),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, fill),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, update),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, copy),
    HALO_REQUIRED_ENTRY_(halo_command_buffer_vtable_t, dispatch),
};
constexpr RequiredEntry kExecutableEntries[] = {
    HALO_REQUIRED_ENTRY_(halo_executable_vtable_t, entry_point_count),
    HALO_REQUIRED_ENTRY_(halo_executable_vtable_t, query_entry_point),
    HALO_REQUIRED_ENTRY_(halo_executable_vtable_t, lookup_entry_point),
};

#undef HALO_REQUIRED_ENTRY_

// What a vtable of one type must have: ABI 1.0's size and its entries.
struct VtableRules {
  uint32_t min_size;
  std::span<const RequiredEntry> required;
};

VtableRules rules_for(halo_object_type_t type) {
  switch (type) {
    case HALO_OBJECT_TYPE_DRIVER:
      return {abi_1_0_size<halo_driver_vtable_t>, kDriverEntries};
    case HALO_OBJECT_TYPE_DEVICE:
      return {abi_1_0_size<halo_device_vtable_t>, kDeviceEntries};
    case HALO_OBJECT_TYPE_SEMAPHORE:
      return {abi_1_0_size<halo_semaphore_vtable_t>, kSemaphoreEntries};
    case HALO_OBJECT_TYPE_BUFFER:
      return {abi_1_0_size<halo_buffer_vtable_t>, kBufferEntries};
    case HALO_OBJECT_TYPE_COMMAND_BUFFER:
      return {abi_1_0_size<halo_command_buffer_vtable_t>,
              kCommandBufferEntries};
    case HALO_OBJECT_TYPE_EXECUTABLE:
      return {abi_1_0_size<halo_executable_vtable_t>, kExecutableEntries};
    default:
      return {abi_1_0_size<halo_object_vtable_t>, {}};
  }
}

// True when the function pointer at |offset| of |vtable| is NULL. Read as
// bytes: the vtable's real type differs per entry.
bool entry_is_null(const halo_object_vtable_t* vtable, size_t offset) {
  void (*entry)() = nullptr;
  std::memcpy(&entry, reinterpret_cast<const char*>(vtable) + offset,
              sizeof(entry));
  return entry == nullptr;
}

}  // namespace

halo_status_t object_defect(const halo_object_t* object,
                            halo_object_type_t type) {
  const char* noun = object_type_name(type);
  const halo_object_vtable_t* vtable = object->vtable;
  if (vtable == nullptr) {
    return halo_status_format(HALO_STATUS_INTERNAL, "the %s has no vtable",
                              noun);
  }
  if (vtable->type != static_cast<uint32_t>(type)) {
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "the %s's vtable has the type tag 0x%08x (%s)",
                              noun, vtable->type,
                              object_type_name(vtable->type));
  }
  const VtableRules rules = rules_for(type);
  if (vtable->struct_size < rules.min_size) {
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "the %s's vtable is %u bytes, smaller than ABI "
                              "1.0's %u",
                              noun, vtable->struct_size, rules.min_size);
  }
  if (vtable->destroy == nullptr) {
    return halo_status_format(HALO_STATUS_INTERNAL,
                              "the %s's vtable lacks destroy", noun);
  }
  for (const RequiredEntry& entry : rules.required) {
    if (entry_is_null(vtable, entry.offset)) {
      return halo_status_format(HALO_STATUS_INTERNAL,
                                "the %s's vtable lacks %s", noun, entry.name);
    }
  }
  return nullptr;
}

void discard_object(halo_object_t* object) noexcept {
  const halo_object_vtable_t* vtable = object->vtable;
  if (vtable == nullptr ||
      vtable->struct_size < abi_1_0_size<halo_object_vtable_t> ||
      vtable->destroy == nullptr) {
    return;
  }
  release_object(object);
}

halo_status_t adopt_object(const char* function, const void* code,
                           halo_object_type_t type, const void* parent,
                           halo_object_t** out_object) {
  halo_object_t* object = *out_object;
  if (object == nullptr) {
    return plugin_fault(code, function, "returned OK but no %s",
                        object_type_name(type));
  }
  halo_status_t defect = object_defect(object, type);
  if (defect == nullptr) [[likely]] {
    if (validation::enabled()) [[unlikely]] {
      validation::on_created(parent, object, type, function);
    }
    return nullptr;
  }
  discard_object(object);
  *out_object = nullptr;
  halo_status_t status =
      plugin_fault(code, function, "returned a broken %s: %s",
                   object_type_name(type), halo_status_message(defect));
  halo_status_free(defect);
  return status;
}

}  // namespace halo::loader
