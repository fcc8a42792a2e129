// The device's public C API: info, capabilities, compatibility and the queue.
#include <cstdio>

#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "device_side_waits.hpp"
#include "halo/device.h"
#include "object_refs.hpp"
#include "plugin_status.hpp"
#include "validation/submission_tracker.hpp"

using namespace halo::loader;

namespace {

constexpr uint32_t kDeviceVtableSize = abi_1_0_size<halo_device_vtable_t>;

halo_status_t check_device(halo_device_t* device, const char* function) {
  return check_object(device, HALO_OBJECT_TYPE_DEVICE, kDeviceVtableSize,
                      function, "device");
}

const halo_device_vtable_t* device_vtable(halo_device_t* device) {
  return vtable_of<halo_device_vtable_t>(device);
}

// Checks one wait or signal list: non-NULL arrays for a non-zero count, real
// semaphores, values within range.
halo_status_t check_semaphore_list(size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values, const char* function,
                                   const char* list) {
  if (count == 0) return nullptr;
  if (semaphores == nullptr || values == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: info->%s_semaphores or info->%s_values is "
                              "NULL with a count of %zu",
                              function, list, list, count);
  }
  for (size_t i = 0; i < count; ++i) {
    if (validation::enabled()) [[unlikely]] {
      char array[32];
      std::snprintf(array, sizeof(array), "info->%s_semaphores", list);
      HALO_RETURN_IF_ERROR(
          validation::check_released_element(semaphores[i], function, array, i));
    }
    halo_status_t status =
        check_object(semaphores[i], HALO_OBJECT_TYPE_SEMAPHORE,
                     abi_1_0_size<halo_semaphore_vtable_t>, function, list);
    if (status != nullptr) {
      halo_status_free(status);
      return halo_status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "%s: info->%s_semaphores[%zu] is NULL or not a semaphore", function,
          list, i);
    }
    if (values[i] > HALO_SEMAPHORE_MAX_VALUE) {
      return halo_status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "%s: info->%s_values[%zu] = %llu is above HALO_SEMAPHORE_MAX_VALUE",
          function, list, i, static_cast<unsigned long long>(values[i]));
    }
  }
  return nullptr;
}

// A queue signal must move its semaphore forward (DESIGN.md §5): one at or
// below the payload already can never land, so it is refused here, before
// anything is submitted, for every plugin alike. A failed semaphore is left
// to the plugin (the signal will meet the failure).
halo_status_t check_signals_ahead(const halo_queue_execute_info_t* info,
                                  const char* function) {
  for (size_t i = 0; i < info->signal_count; ++i) {
    halo_semaphore_t* semaphore = info->signal_semaphores[i];
    const auto query = vtable_of<halo_semaphore_vtable_t>(semaphore)->query;
    uint64_t payload = 0;
    halo_status_t state = call_plugin(function, query, semaphore, &payload);
    if (state != nullptr) {
      halo_status_free(state);
      continue;
    }
    if (info->signal_values[i] <= payload) {
      return halo_status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "%s: info->signal_values[%zu] = %llu is not above the payload %llu "
          "of info->signal_semaphores[%zu]",
          function, i, static_cast<unsigned long long>(info->signal_values[i]),
          static_cast<unsigned long long>(payload), i);
    }
  }
  return nullptr;
}

halo_status_t check_execute_info(const halo_queue_execute_info_t* info,
                                 const char* function) {
  if (info == nullptr) return null_argument(function, "info");
  // Only ABI 1.0's members are read below (and none newer exists yet).
  if (info->struct_size < abi_1_0_size<halo_queue_execute_info_t>) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: info->struct_size %u is smaller than ABI "
                              "1.0's %u",
                              function, info->struct_size,
                              abi_1_0_size<halo_queue_execute_info_t>);
  }
  HALO_RETURN_IF_ERROR(check_semaphore_list(info->wait_count,
                                            info->wait_semaphores,
                                            info->wait_values, function, "wait"));
  HALO_RETURN_IF_ERROR(check_semaphore_list(info->signal_count,
                                            info->signal_semaphores,
                                            info->signal_values, function,
                                            "signal"));
  HALO_RETURN_IF_ERROR(check_signals_ahead(info, function));
  if (info->command_buffer_count > 0 && info->command_buffers == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: info->command_buffers is NULL with a count "
                              "of %zu",
                              function, info->command_buffer_count);
  }
  for (size_t i = 0; i < info->command_buffer_count; ++i) {
    if (validation::enabled()) [[unlikely]] {
      HALO_RETURN_IF_ERROR(validation::check_released_element(
          info->command_buffers[i], function, "info->command_buffers", i));
    }
    halo_status_t status = check_object(
        info->command_buffers[i], HALO_OBJECT_TYPE_COMMAND_BUFFER,
        abi_1_0_size<halo_command_buffer_vtable_t>, function, "command buffer");
    if (status != nullptr) {
      halo_status_free(status);
      return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: info->command_buffers[%zu] is NULL or "
                                "not a command buffer",
                                function, i);
    }
  }
  return nullptr;
}

}  // namespace

extern "C" {

void halo_device_retain(halo_device_t* device) {
  retain_checked(as_object(device), "halo_device_retain");
}

void halo_device_release(halo_device_t* device) {
  release_checked(as_object(device), "halo_device_release");
}

halo_status_t halo_device_query_info(halo_device_t* device,
                                     halo_device_info_t* out_info) try {
  static const char kFunction[] = "halo_device_query_info";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  if (out_info == nullptr) return null_argument(kFunction, "out_info");
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_RETURN_IF_ERROR(
      call_plugin(kFunction, device_vtable(device)->query_info, device, &info));
  info.name[sizeof(info.name) - 1] = '\0';
  info.vendor[sizeof(info.vendor) - 1] = '\0';
  info.driver_version[sizeof(info.driver_version) - 1] = '\0';
  info.native_api[sizeof(info.native_api) - 1] = '\0';
  info.struct_size = sizeof(info);
  return copy_out(info, out_info, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_device_query_capabilities(
    halo_device_t* device, halo_device_capabilities_t* out_capabilities) try {
  static const char kFunction[] = "halo_device_query_capabilities";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  if (out_capabilities == nullptr) {
    return null_argument(kFunction, "out_capabilities");
  }
  halo_device_capabilities_t capabilities = {};
  capabilities.struct_size = sizeof(capabilities);
  HALO_RETURN_IF_ERROR(call_plugin(kFunction,
                                   device_vtable(device)->query_capabilities,
                                   device, &capabilities));
  capabilities.executable_formats[sizeof(capabilities.executable_formats) - 1] =
      '\0';
  capabilities.struct_size = sizeof(capabilities);
  return copy_out(capabilities, out_capabilities, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_device_semaphore_compatibility(
    halo_device_t* device, halo_semaphore_t* semaphore,
    halo_semaphore_compatibility_t* out_compatibility) try {
  static const char kFunction[] = "halo_device_semaphore_compatibility";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  HALO_RETURN_IF_ERROR(check_object(semaphore, HALO_OBJECT_TYPE_SEMAPHORE,
                                    abi_1_0_size<halo_semaphore_vtable_t>,
                                    kFunction, "semaphore"));
  if (out_compatibility == nullptr) {
    return null_argument(kFunction, "out_compatibility");
  }
  *out_compatibility =
      device_vtable(device)->semaphore_compatibility(device, semaphore);
  // Another device can do nothing with an import for device waits only,
  // whatever its plugin says of a foreign semaphore (external.h).
  if (*out_compatibility != HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT &&
      for_device_waits_only(semaphore)) {
    *out_compatibility = HALO_SEMAPHORE_COMPATIBILITY_NONE;
    return nullptr;
  }
  // Validation keeps every host hand-off (halo_device_queue_execute).
  if (!validation::enabled() && device_side_wait_possible(device, semaphore)) {
    *out_compatibility |= HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT;
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_device_queue_execute(
    halo_device_t* device, const halo_queue_execute_info_t* info) try {
  static const char kFunction[] = "halo_device_queue_execute";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  HALO_RETURN_IF_ERROR(check_execute_info(info, kFunction));
  if (validation::enabled()) [[unlikely]] {
    // Validation keeps every host hand-off, so that it sees each semaphore
    // the application named.
    return validation::queue_execute(device, info, kFunction);
  }
  const auto execute = device_vtable(device)->queue_execute;
  if (!automatic_device_waits_seen()) {
    return call_plugin(kFunction, execute, device, info);
  }
  DeviceSideWaits waits;
  return call_plugin(kFunction, execute, device, waits.apply(device, info));
}
HALO_API_CATCH_ALL

halo_status_t halo_device_queue_flush(halo_device_t* device,
                                      halo_queue_affinity_t affinity) try {
  static const char kFunction[] = "halo_device_queue_flush";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  return call_plugin(kFunction, device_vtable(device)->queue_flush, device,
                     affinity);
}
HALO_API_CATCH_ALL

halo_status_t halo_device_wait_idle(halo_device_t* device,
                                    halo_time_ns_t deadline) try {
  static const char kFunction[] = "halo_device_wait_idle";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  return call_plugin(kFunction, device_vtable(device)->wait_idle, device,
                     deadline);
}
HALO_API_CATCH_ALL

}  // extern "C"
