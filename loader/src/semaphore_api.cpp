// The semaphore's public C API: argument checks, then the plugin's vtable.
#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "device_side_waits.hpp"
#include "external_checks.hpp"
#include "halo/device.h"
#include "halo/semaphore.h"
#include "multi_wait.hpp"
#include "object_refs.hpp"
#include "plugin_objects.hpp"
#include "plugin_status.hpp"
#include "validation/host_wait.hpp"

using namespace halo::loader;

namespace {

constexpr uint32_t kSemaphoreVtableSize =
    abi_1_0_size<halo_semaphore_vtable_t>;

halo_status_t check_semaphore(halo_semaphore_t* semaphore,
                              const char* function) {
  return check_object(semaphore, HALO_OBJECT_TYPE_SEMAPHORE,
                      kSemaphoreVtableSize, function, "semaphore");
}

const halo_semaphore_vtable_t* semaphore_vtable(halo_semaphore_t* semaphore) {
  return vtable_of<halo_semaphore_vtable_t>(semaphore);
}

halo_status_t check_value(uint64_t value, const char* function,
                          const char* argument) {
  if (value <= HALO_SEMAPHORE_MAX_VALUE) return nullptr;
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s %llu is above HALO_SEMAPHORE_MAX_VALUE",
                            function, argument,
                            static_cast<unsigned long long>(value));
}

}  // namespace

extern "C" {

halo_status_t halo_semaphore_create(halo_device_t* device,
                                    uint64_t initial_value,
                                    halo_semaphore_flags_t flags,
                                    halo_semaphore_t** out_semaphore) try {
  static const char kFunction[] = "halo_semaphore_create";
  HALO_RETURN_IF_ERROR(check_object(device, HALO_OBJECT_TYPE_DEVICE,
                                    abi_1_0_size<halo_device_vtable_t>,
                                    kFunction, "device"));
  if (out_semaphore == nullptr) return null_argument(kFunction, "out_semaphore");
  *out_semaphore = nullptr;
  HALO_RETURN_IF_ERROR(check_value(initial_value, kFunction, "initial_value"));
  HALO_RETURN_IF_ERROR(check_known_flags(flags, HALO_SEMAPHORE_FLAGS_KNOWN,
                                         kFunction, "flags"));
  if (flags & HALO_SEMAPHORE_FLAG_EXPORTABLE) {
    HALO_RETURN_IF_ERROR(check_exportable(
        device, ExternalUse::kSemaphoreExport, kFunction, "flags"));
  }
  const auto create = vtable_of<halo_device_vtable_t>(device)->create_semaphore;
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, create, device, initial_value,
                                   flags, out_semaphore));
  return adopt_created(kFunction, reinterpret_cast<const void*>(create),
                       HALO_OBJECT_TYPE_SEMAPHORE, device, out_semaphore);
}
HALO_API_CATCH_ALL

void halo_semaphore_retain(halo_semaphore_t* semaphore) {
  retain_checked(as_object(semaphore), "halo_semaphore_retain");
}

void halo_semaphore_release(halo_semaphore_t* semaphore) {
  release_checked(as_object(semaphore), "halo_semaphore_release");
}

halo_status_t halo_semaphore_query(halo_semaphore_t* semaphore,
                                   uint64_t* out_value) try {
  static const char kFunction[] = "halo_semaphore_query";
  HALO_RETURN_IF_ERROR(check_semaphore(semaphore, kFunction));
  if (out_value == nullptr) return null_argument(kFunction, "out_value");
  return call_plugin(kFunction, semaphore_vtable(semaphore)->query, semaphore,
                     out_value);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_signal(halo_semaphore_t* semaphore,
                                    uint64_t value) try {
  static const char kFunction[] = "halo_semaphore_signal";
  HALO_RETURN_IF_ERROR(check_semaphore(semaphore, kFunction));
  HALO_RETURN_IF_ERROR(check_value(value, kFunction, "value"));
  if (value == 0) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: value 0 is never above the payload",
                              kFunction);
  }
  return call_plugin(kFunction, semaphore_vtable(semaphore)->signal, semaphore,
                     value);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_fail(halo_semaphore_t* semaphore,
                                  halo_status_t status) try {
  static const char kFunction[] = "halo_semaphore_fail";
  halo_status_t error = check_semaphore(semaphore, kFunction);
  if (error != nullptr) {
    halo_status_free(status);
    return error;
  }
  if (status == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: status is OK; a failure needs an error",
                              kFunction);
  }
  // Its plugin's fail cannot refuse (it returns nothing): an import for
  // device waits only carries no failure (external.h).
  if (for_device_waits_only(semaphore)) {
    halo_status_free(status);
    return halo_status_format(HALO_STATUS_FAILED_PRECONDITION,
                              "%s: the semaphore was imported for device waits "
                              "only; the host cannot fail it",
                              kFunction);
  }
  semaphore_vtable(semaphore)->fail(semaphore, status);
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_wait(halo_semaphore_t* semaphore, uint64_t value,
                                  halo_time_ns_t deadline) try {
  static const char kFunction[] = "halo_semaphore_wait";
  HALO_RETURN_IF_ERROR(check_semaphore(semaphore, kFunction));
  HALO_RETURN_IF_ERROR(check_value(value, kFunction, "value"));
  // A poll never reaches the flag's load: the deadline, in a register,
  // decides first.
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE && validation::enabled())
      [[unlikely]] {
    return validation::wait_forever(semaphore, value, kFunction);
  }
  return call_plugin(kFunction, semaphore_vtable(semaphore)->wait, semaphore,
                     value, deadline);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphores_wait(halo_wait_mode_t mode, size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline) try {
  static const char kFunction[] = "halo_semaphores_wait";
  if (mode != HALO_WAIT_MODE_ALL && mode != HALO_WAIT_MODE_ANY) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: mode %d is neither ALL nor ANY", kFunction,
                              static_cast<int>(mode));
  }
  if (count == 0) return nullptr;
  if (semaphores == nullptr) return null_argument(kFunction, "semaphores");
  if (values == nullptr) return null_argument(kFunction, "values");
  for (size_t i = 0; i < count; ++i) {
    if (validation::enabled()) [[unlikely]] {
      HALO_RETURN_IF_ERROR(validation::check_released_element(
          semaphores[i], kFunction, "semaphores", i));
    }
    halo_status_t status = check_semaphore(semaphores[i], kFunction);
    if (status != nullptr) {
      halo_status_free(status);
      return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: semaphores[%zu] is NULL or not a "
                                "semaphore",
                                kFunction, i);
    }
    HALO_RETURN_IF_ERROR(check_value(values[i], kFunction, "a value"));
  }
  if (validation::enabled()) [[unlikely]] {
    if (deadline == HALO_DEADLINE_INFINITE_FUTURE) {
      return validation::wait_all_or_any_forever(mode, count, semaphores,
                                                 values, kFunction);
    }
  }
  return wait_semaphores(mode, count, semaphores, values, deadline);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_acquire_timepoint(halo_semaphore_t* semaphore,
                                               halo_timepoint_t* timepoint) try {
  static const char kFunction[] = "halo_semaphore_acquire_timepoint";
  HALO_RETURN_IF_ERROR(check_semaphore(semaphore, kFunction));
  if (timepoint == nullptr) return null_argument(kFunction, "timepoint");
  if (timepoint->struct_size < abi_1_0_size<halo_timepoint_t>) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: timepoint->struct_size %u is smaller than "
                              "ABI 1.0's %u",
                              kFunction, timepoint->struct_size,
                              abi_1_0_size<halo_timepoint_t>);
  }
  if (timepoint->callback == nullptr) {
    return null_argument(kFunction, "timepoint->callback");
  }
  HALO_RETURN_IF_ERROR(
      check_value(timepoint->value, kFunction, "timepoint->value"));
  return call_plugin(kFunction, semaphore_vtable(semaphore)->acquire_timepoint,
                     semaphore, timepoint);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_cancel_timepoint(halo_semaphore_t* semaphore,
                                              halo_timepoint_t* timepoint,
                                              bool* out_cancelled) try {
  static const char kFunction[] = "halo_semaphore_cancel_timepoint";
  HALO_RETURN_IF_ERROR(check_semaphore(semaphore, kFunction));
  if (timepoint == nullptr) return null_argument(kFunction, "timepoint");
  const bool cancelled =
      semaphore_vtable(semaphore)->cancel_timepoint(semaphore, timepoint);
  if (out_cancelled != nullptr) *out_cancelled = cancelled;
  return nullptr;
}
HALO_API_CATCH_ALL

}  // extern "C"
