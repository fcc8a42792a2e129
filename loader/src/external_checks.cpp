#include "external_checks.hpp"

#include <cstddef>
#include <string>

#include "plugin_status.hpp"

namespace halo::loader {
namespace {

// ABI 1.3's halo_external_handle_t: every member, since the struct is new.
constexpr uint32_t kHandleSize = sizeof(halo_external_handle_t);

halo_external_handle_type_t offered(const halo_device_capabilities_t& caps,
                                    ExternalUse use) {
  switch (use) {
    case ExternalUse::kBufferExport: return caps.buffer_export_types;
    case ExternalUse::kBufferImport: return caps.buffer_import_types;
    case ExternalUse::kSemaphoreExport: return caps.semaphore_export_types;
    case ExternalUse::kSemaphoreImport: return caps.semaphore_import_types;
    case ExternalUse::kSemaphoreWaitImport:
      return caps.semaphore_import_types | caps.semaphore_wait_import_types;
  }
  return 0;
}

const char* use_words(ExternalUse use) {
  switch (use) {
    case ExternalUse::kBufferExport: return "export buffers";
    case ExternalUse::kBufferImport: return "import buffers";
    case ExternalUse::kSemaphoreExport: return "export semaphores";
    case ExternalUse::kSemaphoreImport: return "import semaphores";
    case ExternalUse::kSemaphoreWaitImport:
      return "import semaphores for device waits";
  }
  return "share";
}

// "OPAQUE_FD|HOST_ALLOCATION", or "nothing".
std::string type_list(halo_external_handle_type_t types) {
  std::string list;
  for (halo_external_handle_type_t bit = 1;
       bit & HALO_EXTERNAL_HANDLE_TYPES_KNOWN; bit <<= 1) {
    if ((types & bit) == 0) continue;
    if (!list.empty()) list += '|';
    list += handle_type_name(bit);
  }
  return list.empty() ? "nothing" : list;
}

}  // namespace

const char* handle_type_name(halo_external_handle_type_t type) {
  switch (type) {
    case HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD: return "OPAQUE_FD";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION: return "HOST_ALLOCATION";
    case HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF: return "DMA_BUF";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD: return "HOST_TIMELINE_FD";
    default: return type == 0 ? "none" : "unknown";
  }
}

halo_status_t query_capabilities(halo_device_t* device, const char* function,
                                 halo_device_capabilities_t* out) {
  *out = {};
  out->struct_size = sizeof(*out);
  const auto* vtable = reinterpret_cast<const halo_device_vtable_t*>(
      reinterpret_cast<halo_object_t*>(device)->vtable);
  return call_plugin(function, vtable->query_capabilities, device, out);
}

halo_status_t check_handle_type(halo_external_handle_type_t type,
                                const char* function, const char* argument) {
  if (type != 0 && (type & (type - 1)) == 0 &&
      (type & ~HALO_EXTERNAL_HANDLE_TYPES_KNOWN) == 0) {
    return nullptr;
  }
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s 0x%x is not exactly one known external "
                            "handle type",
                            function, argument, type);
}

halo_status_t check_device_offers(const halo_device_capabilities_t& caps,
                                  ExternalUse use,
                                  halo_external_handle_type_t type,
                                  const char* function) {
  const halo_external_handle_type_t types = offered(caps, use);
  if ((types & type) != 0) return nullptr;
  return halo_status_format(HALO_STATUS_UNIMPLEMENTED,
                            "%s: the device cannot %s as %s (it can as %s)",
                            function, use_words(use), handle_type_name(type),
                            type_list(types).c_str());
}

halo_status_t check_exportable(halo_device_t* device, ExternalUse use,
                               const char* function, const char* argument) {
  halo_device_capabilities_t caps;
  halo_status_t status = query_capabilities(device, function, &caps);
  if (status != nullptr) return status;
  if (offered(caps, use) != 0) return nullptr;
  return halo_status_format(HALO_STATUS_UNIMPLEMENTED,
                            "%s: %s asks for EXPORTABLE, but the device cannot "
                            "%s as any external handle type",
                            function, argument, use_words(use));
}

halo_status_t check_import_handle(halo_device_t* device,
                                  const halo_external_handle_t* handle,
                                  ExternalUse use, const char* function,
                                  halo_device_capabilities_t* out_caps) {
  if (handle == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: handle is NULL", function);
  }
  if (handle->struct_size < kHandleSize) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: handle->struct_size %u is smaller than ABI "
                              "1.3's %u",
                              function, handle->struct_size, kHandleSize);
  }
  halo_status_t status = check_handle_type(handle->type, function,
                                           "handle->type");
  if (status != nullptr) return status;
  if (handle->type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) {
    if (handle->host_pointer == nullptr) {
      return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                                "%s: handle->host_pointer is NULL for a "
                                "HOST_ALLOCATION",
                                function);
    }
  } else if (handle->fd < 0) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: handle->fd %d is not a file descriptor",
                              function, handle->fd);
  }
  status = query_capabilities(device, function, out_caps);
  if (status != nullptr) return status;
  return check_device_offers(*out_caps, use, handle->type, function);
}

halo_status_t check_export_arguments(halo_external_handle_type_t type,
                                     const halo_external_handle_t* out_handle,
                                     const char* function) {
  halo_status_t status = check_handle_type(type, function, "type");
  if (status != nullptr) return status;
  if (out_handle == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: out_handle is NULL", function);
  }
  if (out_handle->struct_size < kHandleSize) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: out_handle->struct_size %u is smaller than "
                              "ABI 1.3's %u",
                              function, out_handle->struct_size, kHandleSize);
  }
  return nullptr;
}

}  // namespace halo::loader
