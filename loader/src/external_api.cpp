// Public C API of external handles (external.h): export and import of
// buffers and semaphores. libhalo checks the arguments and the device's
// reported handle types once, then calls the plugin's ABI 1.3 entries; a
// plugin that predates them answers UNIMPLEMENTED.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

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

// What an import hands its plugin: the caller's handle, with a duplicate
// of its fd. The caller's fd is closed only once the whole import has
// succeeded, libhalo's adoption of the object included, so that whatever
// fails, a plugin's refusal or a broken object it returned, the caller
// still owns an open fd (external.h); the duplicate is closed here unless
// the plugin took it (it returned OK).
class ImportHandle {
 public:
  explicit ImportHandle(const halo_external_handle_t& caller)
      : caller_fd_(caller.fd), given_(caller) {
    given_.struct_size = sizeof(given_);
    if (given_.type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) {
      caller_fd_ = -1;
      given_.fd = -1;
    }
  }
  ImportHandle(const ImportHandle&) = delete;
  ImportHandle& operator=(const ImportHandle&) = delete;
  ~ImportHandle() {
    if (duplicate_ >= 0) close(duplicate_);
  }

  // Duplicates the caller's fd for the plugin. Returns INVALID_ARGUMENT
  // when it is not open, RESOURCE_EXHAUSTED when fds run out.
  halo_status_t duplicate(const char* function) {
    if (caller_fd_ < 0) return nullptr;
    duplicate_ = fcntl(caller_fd_, F_DUPFD_CLOEXEC, 0);
    if (duplicate_ >= 0) {
      given_.fd = duplicate_;
      return nullptr;
    }
    const int error = errno;
    return halo_status_format(error == EBADF ? HALO_STATUS_INVALID_ARGUMENT
                                             : HALO_STATUS_RESOURCE_EXHAUSTED,
                              "%s: handle->fd %d cannot be duplicated: %s",
                              function, caller_fd_, std::strerror(error));
  }
  const halo_external_handle_t* given() const { return &given_; }
  // The plugin returned OK: it owns the duplicate now.
  void taken() { duplicate_ = -1; }
  // The import succeeded: the caller's fd is the import's to close.
  void succeeded() {
    if (caller_fd_ >= 0) close(caller_fd_);
  }

 private:
  int caller_fd_;
  int duplicate_ = -1;
  halo_external_handle_t given_;
};

// Calls the plugin's import |entry| with |handle| through an ImportHandle,
// then adopts the object it made as |type|, closing the caller's fd only
// when everything succeeded.
template <typename Entry, typename Handle, typename... Args>
halo_status_t import_object(const char* function, Entry entry,
                            halo_object_type_t type, halo_device_t* device,
                            const halo_external_handle_t& handle,
                            Handle** out_object, Args... leading) {
  ImportHandle import(handle);
  HALO_RETURN_IF_ERROR(import.duplicate(function));
  HALO_RETURN_IF_ERROR(call_plugin(function, entry, device, leading...,
                                   import.given(), out_object));
  import.taken();
  HALO_RETURN_IF_ERROR(adopt_created(function,
                                     reinterpret_cast<const void*>(entry),
                                     type, device, out_object));
  import.succeeded();
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
  return import_object(kFunction, vtable->import_buffer,
                       HALO_OBJECT_TYPE_BUFFER, device, *handle, out_buffer,
                       params);
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
  ExternalUse use = ExternalUse::kSemaphoreImport;
  if (handle != nullptr && handle->struct_size >= sizeof(*handle)) {
    if ((handle->flags & ~HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY) != 0) {
      return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: handle->flags 0x%x has bits other than "
                                "DEVICE_WAITS_ONLY",
                                kFunction, handle->flags);
    }
    if (handle->flags != 0) use = ExternalUse::kSemaphoreWaitImport;
  }
  halo_device_capabilities_t caps;
  HALO_RETURN_IF_ERROR(
      check_import_handle(device, handle, use, kFunction, &caps));
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (!HALO_VTABLE_HAS(vtable, halo_device_vtable_t, import_semaphore)) {
    return unimplemented(kFunction, "semaphore import");
  }
  return import_object(kFunction, vtable->import_semaphore,
                       HALO_OBJECT_TYPE_SEMAPHORE, device, *handle,
                       out_semaphore);
}
HALO_API_CATCH_ALL

}  // extern "C"
