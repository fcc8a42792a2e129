// Public C API of external handles (external.h): export and import of
// buffers and semaphores. libhalo checks the arguments and the device's
// reported handle types once, then calls the plugin's ABI 1.3 entries; a
// plugin that predates them answers UNIMPLEMENTED.
#include <unistd.h>

#include <cstdint>

#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "external_checks.hpp"
#include "halo/device.h"
#include "halo/external.h"
#include "plugin_objects.hpp"
#include "plugin_status.hpp"

using namespace halo::loader;

namespace {

// A fresh handle for a plugin to fill: libhalo's own full-size struct.
halo_external_handle_t empty_handle() {
  halo_external_handle_t handle = {};
  handle.struct_size = sizeof(handle);
  handle.fd = -1;
  return handle;
}

// Checks what a plugin's export |entry| handed back for |type|: the type
// asked for, and an fd or host pointer as it needs. A plugin that breaks
// this is INTERNAL naming it; an fd it did return is closed.
halo_status_t check_exported(const void* entry, const char* function,
                             halo_external_handle_type_t type,
                             halo_external_handle_t* handle) {
  const bool host = type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  const bool usable = handle->type == type &&
                      (host ? handle->host_pointer != nullptr
                            : handle->fd >= 0);
  if (usable) return nullptr;
  if (handle->fd >= 0) close(handle->fd);
  return plugin_fault(entry, function,
                      "returned OK but no %s handle (type 0x%x, fd %d)",
                      handle_type_name(type), handle->type, handle->fd);
}

// Finishes an export: checks the plugin's handle and copies it out.
halo_status_t finish_export(const void* entry, const char* function,
                            halo_external_handle_type_t type,
                            halo_status_t status,
                            halo_external_handle_t* handle,
                            halo_external_handle_t* out_handle) {
  status = plugin_status(status, entry, function);
  if (status != nullptr) return status;
  status = check_exported(entry, function, type, handle);
  if (status != nullptr) return status;
  return copy_out(*handle, out_handle, function);
}

// The checks of halo_buffer_import that only a buffer's |params| need,
// against the device's |caps| and the |handle| already checked.
halo_status_t check_import_params(const halo_buffer_params_t* params,
                                  const halo_external_handle_t& handle,
                                  const halo_device_capabilities_t& caps,
                                  const char* function) {
  HALO_RETURN_IF_ERROR(check_known_flags(params->flags, HALO_BUFFER_FLAGS_KNOWN,
                                         function, "params->flags"));
  if (params->flags & HALO_BUFFER_FLAG_EXPORTABLE) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->flags asks for EXPORTABLE; an "
                              "imported buffer is exported where it was made",
                              function);
  }
  if (params->alignment != 0) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->alignment must be 0: the memory is "
                              "already placed",
                              function);
  }
  if (params->size == 0 || params->size > handle.size) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->size %llu must be 1 to handle->size %llu", function,
        static_cast<unsigned long long>(params->size),
        static_cast<unsigned long long>(handle.size));
  }
  if (handle.type != HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) return nullptr;
  const uint64_t alignment = caps.host_allocation_alignment;
  const auto address = reinterpret_cast<uintptr_t>(handle.host_pointer);
  if (alignment == 0 || address % alignment != 0 ||
      handle.size % alignment != 0) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: handle->host_pointer %p and handle->size %llu must be multiples "
        "of the device's host_allocation_alignment %llu",
        function, handle.host_pointer,
        static_cast<unsigned long long>(handle.size),
        static_cast<unsigned long long>(alignment));
  }
  if ((params->memory_type & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->memory_type 0x%x lacks "
                              "HOST_VISIBLE, which a HOST_ALLOCATION always is",
                              function, params->memory_type);
  }
  return nullptr;
}

}  // namespace

extern "C" {

halo_status_t halo_buffer_export(halo_buffer_t* buffer,
                                 halo_external_handle_type_t type,
                                 halo_external_handle_t* out_handle) try {
  static const char kFunction[] = "halo_buffer_export";
  HALO_RETURN_IF_ERROR(check_object(buffer, HALO_OBJECT_TYPE_BUFFER,
                                    abi_1_0_size<halo_buffer_vtable_t>,
                                    kFunction, "buffer"));
  HALO_RETURN_IF_ERROR(check_export_arguments(type, out_handle, kFunction));
  const auto* vtable = vtable_of<halo_buffer_vtable_t>(buffer);
  if (!HALO_VTABLE_HAS(vtable, halo_buffer_vtable_t, export_handle)) {
    return unimplemented(kFunction, "buffer export");
  }
  halo_external_handle_t handle = empty_handle();
  halo_status_t status = vtable->export_handle(buffer, type, &handle);
  return finish_export(reinterpret_cast<const void*>(vtable->export_handle),
                       kFunction, type, status, &handle, out_handle);
}
HALO_API_CATCH_ALL

halo_status_t halo_buffer_import(halo_device_t* device,
                                 const halo_buffer_params_t* params,
                                 const halo_external_handle_t* handle,
                                 halo_buffer_t** out_buffer) try {
  static const char kFunction[] = "halo_buffer_import";
  if (out_buffer == nullptr) return null_argument(kFunction, "out_buffer");
  *out_buffer = nullptr;
  HALO_RETURN_IF_ERROR(check_object(device, HALO_OBJECT_TYPE_DEVICE,
                                    abi_1_0_size<halo_device_vtable_t>,
                                    kFunction, "device"));
  if (params == nullptr) return null_argument(kFunction, "params");
  if (params->struct_size < abi_1_0_size<halo_buffer_params_t>) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->struct_size %u is smaller than ABI "
                              "1.0's %u",
                              kFunction, params->struct_size,
                              abi_1_0_size<halo_buffer_params_t>);
  }
  halo_device_capabilities_t caps;
  HALO_RETURN_IF_ERROR(check_import_handle(
      device, handle, ExternalUse::kBufferImport, kFunction, &caps));
  HALO_RETURN_IF_ERROR(check_import_params(params, *handle, caps, kFunction));
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (!HALO_VTABLE_HAS(vtable, halo_device_vtable_t, import_buffer)) {
    return unimplemented(kFunction, "buffer import");
  }
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, vtable->import_buffer, device,
                                   params, handle, out_buffer));
  return adopt_created(kFunction,
                       reinterpret_cast<const void*>(vtable->import_buffer),
                       HALO_OBJECT_TYPE_BUFFER, device, out_buffer);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_export(halo_semaphore_t* semaphore,
                                    halo_external_handle_type_t type,
                                    halo_external_handle_t* out_handle) try {
  static const char kFunction[] = "halo_semaphore_export";
  HALO_RETURN_IF_ERROR(check_object(semaphore, HALO_OBJECT_TYPE_SEMAPHORE,
                                    abi_1_0_size<halo_semaphore_vtable_t>,
                                    kFunction, "semaphore"));
  HALO_RETURN_IF_ERROR(check_export_arguments(type, out_handle, kFunction));
  const auto* vtable = vtable_of<halo_semaphore_vtable_t>(semaphore);
  if (!HALO_VTABLE_HAS(vtable, halo_semaphore_vtable_t, export_handle)) {
    return unimplemented(kFunction, "semaphore export");
  }
  halo_external_handle_t handle = empty_handle();
  halo_status_t status = vtable->export_handle(semaphore, type, &handle);
  return finish_export(reinterpret_cast<const void*>(vtable->export_handle),
                       kFunction, type, status, &handle, out_handle);
}
HALO_API_CATCH_ALL

halo_status_t halo_semaphore_import(halo_device_t* device,
                                    const halo_external_handle_t* handle,
                                    halo_semaphore_t** out_semaphore) try {
  static const char kFunction[] = "halo_semaphore_import";
  if (out_semaphore == nullptr) {
    return null_argument(kFunction, "out_semaphore");
  }
  *out_semaphore = nullptr;
  HALO_RETURN_IF_ERROR(check_object(device, HALO_OBJECT_TYPE_DEVICE,
                                    abi_1_0_size<halo_device_vtable_t>,
                                    kFunction, "device"));
  halo_device_capabilities_t caps;
  HALO_RETURN_IF_ERROR(check_import_handle(
      device, handle, ExternalUse::kSemaphoreImport, kFunction, &caps));
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (!HALO_VTABLE_HAS(vtable, halo_device_vtable_t, import_semaphore)) {
    return unimplemented(kFunction, "semaphore import");
  }
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, vtable->import_semaphore,
                                   device, handle, out_semaphore));
  return adopt_created(kFunction,
                       reinterpret_cast<const void*>(vtable->import_semaphore),
                       HALO_OBJECT_TYPE_SEMAPHORE, device, out_semaphore);
}
HALO_API_CATCH_ALL

}  // extern "C"
