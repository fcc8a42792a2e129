// external.import.*: what every device answers to halo_buffer_import and
// halo_semaphore_import (external.h) whatever it can import: bad arguments
// are INVALID_ARGUMENT, a type the device does not list is UNIMPLEMENTED,
// and an import that fails leaves a file descriptor with the caller, open.
#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

// A type bit the ABI does not define.
constexpr halo_external_handle_type_t kUnknownType = kUnknownHandleType;

// A well-formed handle of |type| for the checks before a device's own: an fd
// for the fd types, |memory| for HOST_ALLOCATION.
halo_external_handle_t handle_of(halo_external_handle_type_t type, int fd, void* memory,
                                 uint64_t size) {
  halo_external_handle_t handle = is_fd_type(type) ? empty_handle() : host_handle(memory, size);
  handle.type = type;
  if (is_fd_type(type)) handle.fd = fd;
  handle.size = size;
  return handle;
}

HALO_CTS_CASE("external.import.bad_arguments", kNeedBuffers | kNeedSemaphores,
              "halo_buffer_import and halo_semaphore_import with NULL arguments, struct sizes below ABI 1.0's (params) or 1.3's (handle), a type of 0, two bits or an unknown bit, a negative fd or a NULL host pointer are INVALID_ARGUMENT, out set to NULL") {
  halo_device_t* device = ctx.device();
  HostAllocation memory(4096, 4096);
  const halo_buffer_params_t params = buffer_params(4096, HALO_MEMORY_TYPE_HOST_VISIBLE);
  const halo_external_handle_t good = memory.handle();
  check_buffer_import_invalid(nullptr, &params, &good, "a NULL device");
  check_buffer_import_invalid(device, nullptr, &good, "NULL params");
  check_buffer_import_invalid(device, &params, nullptr, "a NULL handle");
  CTS_ASSERT_INVALID(halo_buffer_import(device, &params, &good, nullptr), "halo_buffer_import");
  halo_buffer_params_t small_params = params;
  small_params.struct_size = 4;
  check_buffer_import_invalid(device, &small_params, &good, "params->struct_size 4");
  for (uint32_t size : {uint32_t{0}, uint32_t{sizeof(halo_external_handle_t) - 1}}) {
    halo_external_handle_t handle = good;
    handle.struct_size = size;
    check_buffer_import_invalid(device, &params, &handle,
                                "handle->struct_size " + std::to_string(size));
  }
  const halo_external_handle_type_t bad_types[] = {
      0, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD | HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION,
      kUnknownType};
  for (halo_external_handle_type_t type : bad_types) {
    halo_external_handle_t handle = good;
    handle.type = type;
    check_buffer_import_invalid(device, &params, &handle,
                                "handle->type " + handle_types_text(type));
  }
  for (halo_external_handle_type_t type : kHandleTypes) {
    halo_external_handle_t handle = handle_of(type, -1, nullptr, 4096);
    check_buffer_import_invalid(device, &params, &handle,
                                std::string("a ") + handle_type_text(type) +
                                    (is_fd_type(type) ? " of fd -1" : " at NULL"));
  }

  halo_semaphore_t* out = nullptr;
  halo_external_handle_t semaphore_handle = handle_of(HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, -1,
                                                      nullptr, 0);
  CTS_ASSERT_INVALID(halo_semaphore_import(device, &semaphore_handle, &out),
                     "halo_semaphore_import");
  CTS_ASSERT(out == nullptr);
  CTS_ASSERT_INVALID(halo_semaphore_import(device, nullptr, &out), "halo_semaphore_import");
  CTS_ASSERT_INVALID(halo_semaphore_import(device, &semaphore_handle, nullptr),
                     "halo_semaphore_import");
  // A real fd from here on, so that only the member under test is wrong.
  Fd dev_null(open_dev_null());
  semaphore_handle.fd = dev_null.get();
  semaphore_handle.type = 0;
  CTS_ASSERT_INVALID(halo_semaphore_import(device, &semaphore_handle, &out),
                     "halo_semaphore_import");
  semaphore_handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  semaphore_handle.struct_size = 4;
  CTS_ASSERT_INVALID(halo_semaphore_import(device, &semaphore_handle, &out),
                     "halo_semaphore_import");
  CTS_ASSERT(out == nullptr);
}

// Imports a handle of |type|, which the device does not list, as a buffer
// (|as_buffer|) or a semaphore; fails the case unless UNIMPLEMENTED, and
// unless an fd given is still open afterwards.
void check_import_unimplemented(halo_device_t* device, halo_external_handle_type_t type,
                                bool as_buffer) {
  Fd fd(is_fd_type(type) ? open_dev_null() : -1);
  HostAllocation memory(4096, 4096);
  const halo_external_handle_t handle =
      handle_of(type, fd.get(), memory.bytes(), as_buffer ? 4096 : 0);
  halo_status_t status;
  if (as_buffer) {
    const halo_buffer_params_t params = buffer_params(4096, HALO_MEMORY_TYPE_HOST_VISIBLE);
    BufferRef buffer;
    status = halo_buffer_import(device, &params, &handle, buffer.out());
  } else {
    SemaphoreRef semaphore;
    status = halo_semaphore_import(device, &handle, semaphore.out());
  }
  const halo_status_code_t code = halo_status_code(status);
  const std::string text = take_status_text(status);
  const std::string call = std::string(as_buffer ? "halo_buffer_import(" : "halo_semaphore_import(") +
                           handle_type_text(type) + ")";
  CTS_ASSERT_MSG(code == HALO_STATUS_UNIMPLEMENTED,
                 call + ", a type the device does not list, returned " + text +
                     ", expected UNIMPLEMENTED");
  if (fd.get() >= 0) {
    CTS_ASSERT_MSG(fd_is_open(fd.get()),
                   call + " failed but closed the caller's fd, expected it left open");
  }
}

HALO_CTS_CASE("external.import.unsupported_type", kNeedSemaphores,
              "importing a buffer or semaphore handle of a known type the device does not list in buffer_ or semaphore_import_types is UNIMPLEMENTED, and an fd given stays open") {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  const auto buffer_lacking = types_lacking(caps.buffer_import_types);
  const auto semaphore_lacking = types_lacking(caps.semaphore_import_types);
  if (buffer_lacking.empty() && semaphore_lacking.empty()) {
    skip("the device's buffer_ and semaphore_import_types list every known type");
  }
  for (halo_external_handle_type_t type : buffer_lacking) {
    check_import_unimplemented(ctx.device(), type, true);
  }
  for (halo_external_handle_type_t type : semaphore_lacking) {
    check_import_unimplemented(ctx.device(), type, false);
  }
}

}  // namespace
