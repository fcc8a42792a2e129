// Public C API of buffers, command buffers and executables: checks, then the
// plugin's vtable. Devices that lack them answer UNIMPLEMENTED.
#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "external_checks.hpp"
#include "halo/device.h"
#include "object_refs.hpp"
#include "plugin_objects.hpp"
#include "plugin_status.hpp"
#include "shared_buffers.hpp"
#include "validation/command_accesses.hpp"
#include "validation/submission_tracker.hpp"

using namespace halo::loader;

namespace {

halo_status_t check_device(halo_device_t* device, const char* function) {
  return check_object(device, HALO_OBJECT_TYPE_DEVICE,
                      abi_1_0_size<halo_device_vtable_t>, function, "device");
}

halo_status_t check_buffer(halo_buffer_t* buffer, const char* function,
                           const char* argument = "buffer") {
  return check_object(buffer, HALO_OBJECT_TYPE_BUFFER,
                      abi_1_0_size<halo_buffer_vtable_t>, function, argument);
}

halo_status_t check_command_buffer(halo_command_buffer_t* command_buffer,
                                   const char* function) {
  return check_object(command_buffer, HALO_OBJECT_TYPE_COMMAND_BUFFER,
                      abi_1_0_size<halo_command_buffer_vtable_t>, function,
                      "command_buffer");
}

halo_status_t check_executable(halo_executable_t* executable,
                               const char* function) {
  return check_object(executable, HALO_OBJECT_TYPE_EXECUTABLE,
                      abi_1_0_size<halo_executable_vtable_t>, function,
                      "executable");
}

// Returns INVALID_ARGUMENT when a params struct's |struct_size| is below ABI
// 1.0's |minimum|. The calls here read only ABI 1.0's members of their params
// (none newer exists yet); a plugin reads a newer one only where struct_size
// covers it.
halo_status_t check_params_size(uint32_t struct_size, uint32_t minimum,
                                const char* function) {
  if (struct_size >= minimum) return nullptr;
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->struct_size %u is smaller than ABI "
                            "1.0's %u",
                            function, struct_size, minimum);
}

const halo_buffer_vtable_t* buffer_vtable(halo_buffer_t* buffer) {
  return vtable_of<halo_buffer_vtable_t>(buffer);
}

const halo_command_buffer_vtable_t* command_buffer_vtable(
    halo_command_buffer_t* command_buffer) {
  return vtable_of<halo_command_buffer_vtable_t>(command_buffer);
}

const halo_executable_vtable_t* executable_vtable(
    halo_executable_t* executable) {
  return vtable_of<halo_executable_vtable_t>(executable);
}

}  // namespace

extern "C" {

// --- Buffers ---------------------------------------------------------------

halo_status_t halo_buffer_allocate(halo_device_t* device,
                                   const halo_buffer_params_t* params,
                                   halo_buffer_t** out_buffer) try {
  static const char kFunction[] = "halo_buffer_allocate";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  if (params == nullptr) return null_argument(kFunction, "params");
  if (out_buffer == nullptr) return null_argument(kFunction, "out_buffer");
  *out_buffer = nullptr;
  HALO_RETURN_IF_ERROR(check_params_size(params->struct_size,
                                         abi_1_0_size<halo_buffer_params_t>,
                                         kFunction));
  if (params->alignment != 0 &&
      (params->alignment & (params->alignment - 1)) != 0) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: params->alignment %llu is not a power of two",
                              kFunction,
                              static_cast<unsigned long long>(params->alignment));
  }
  HALO_RETURN_IF_ERROR(check_known_flags(params->flags, HALO_BUFFER_FLAGS_KNOWN,
                                         kFunction, "params->flags"));
  if (params->flags & HALO_BUFFER_FLAG_EXPORTABLE) {
    HALO_RETURN_IF_ERROR(check_exportable(device, ExternalUse::kBufferExport,
                                          kFunction, "params->flags"));
  }
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (vtable->allocate_buffer == nullptr) {
    return unimplemented(kFunction, "buffers");
  }
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, vtable->allocate_buffer, device,
                                   params, out_buffer));
  HALO_RETURN_IF_ERROR(adopt_created(
      kFunction, reinterpret_cast<const void*>(vtable->allocate_buffer),
      HALO_OBJECT_TYPE_BUFFER, device, out_buffer));
  if (params->flags & HALO_BUFFER_FLAG_EXPORTABLE) {
    try {
      note_exportable_buffer(device, *out_buffer, *params);
    } catch (...) {
      release_object(as_object(*out_buffer));
      *out_buffer = nullptr;
      throw;
    }
  }
  return nullptr;
}
HALO_API_CATCH_ALL

void halo_buffer_retain(halo_buffer_t* buffer) {
  retain_checked(as_object(buffer), "halo_buffer_retain");
}

void halo_buffer_release(halo_buffer_t* buffer) {
  release_checked(as_object(buffer), "halo_buffer_release");
}

uint64_t halo_buffer_size(halo_buffer_t* buffer) {
  halo_status_t status = check_buffer(buffer, "halo_buffer_size");
  if (status != nullptr) {
    halo_status_free(status);
    return 0;
  }
  return buffer_vtable(buffer)->size(buffer);
}

halo_status_t halo_buffer_map_range(halo_buffer_t* buffer, uint64_t offset,
                                    uint64_t length, void** out_pointer) try {
  static const char kFunction[] = "halo_buffer_map_range";
  HALO_RETURN_IF_ERROR(check_buffer(buffer, kFunction));
  if (out_pointer == nullptr) return null_argument(kFunction, "out_pointer");
  *out_pointer = nullptr;
  if (validation::enabled()) [[unlikely]] {
    HALO_RETURN_IF_ERROR(validation::check_host_access(
        buffer, offset, length, /*host_writes=*/false, kFunction));
  }
  return call_plugin(kFunction, buffer_vtable(buffer)->map_range, buffer,
                     offset, length, out_pointer);
}
HALO_API_CATCH_ALL

halo_status_t halo_buffer_unmap_range(halo_buffer_t* buffer, uint64_t offset,
                                      uint64_t length) try {
  static const char kFunction[] = "halo_buffer_unmap_range";
  HALO_RETURN_IF_ERROR(check_buffer(buffer, kFunction));
  return call_plugin(kFunction, buffer_vtable(buffer)->unmap_range, buffer,
                     offset, length);
}
HALO_API_CATCH_ALL

halo_status_t halo_buffer_flush_range(halo_buffer_t* buffer, uint64_t offset,
                                      uint64_t length) try {
  static const char kFunction[] = "halo_buffer_flush_range";
  HALO_RETURN_IF_ERROR(check_buffer(buffer, kFunction));
  if (validation::enabled()) [[unlikely]] {
    HALO_RETURN_IF_ERROR(validation::check_host_access(
        buffer, offset, length, /*host_writes=*/true, kFunction));
  }
  return call_plugin(kFunction, buffer_vtable(buffer)->flush_range, buffer,
                     offset, length);
}
HALO_API_CATCH_ALL

halo_status_t halo_buffer_invalidate_range(halo_buffer_t* buffer,
                                           uint64_t offset,
                                           uint64_t length) try {
  static const char kFunction[] = "halo_buffer_invalidate_range";
  HALO_RETURN_IF_ERROR(check_buffer(buffer, kFunction));
  if (validation::enabled()) [[unlikely]] {
    HALO_RETURN_IF_ERROR(validation::check_host_access(
        buffer, offset, length, /*host_writes=*/false, kFunction));
  }
  return call_plugin(kFunction, buffer_vtable(buffer)->invalidate_range, buffer,
                     offset, length);
}
HALO_API_CATCH_ALL

// --- Command buffers -------------------------------------------------------

halo_status_t halo_command_buffer_create(
    halo_device_t* device, halo_command_buffer_mode_t mode,
    halo_command_buffer_t** out_command_buffer) try {
  static const char kFunction[] = "halo_command_buffer_create";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  if (out_command_buffer == nullptr) {
    return null_argument(kFunction, "out_command_buffer");
  }
  *out_command_buffer = nullptr;
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (vtable->create_command_buffer == nullptr) {
    return unimplemented(kFunction, "command buffers");
  }
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, vtable->create_command_buffer,
                                   device, mode, out_command_buffer));
  HALO_RETURN_IF_ERROR(adopt_created(
      kFunction, reinterpret_cast<const void*>(vtable->create_command_buffer),
      HALO_OBJECT_TYPE_COMMAND_BUFFER, device, out_command_buffer));
  try {
    note_command_buffer(device, *out_command_buffer);
  } catch (...) {
    release_object(as_object(*out_command_buffer));
    *out_command_buffer = nullptr;
    throw;
  }
  return nullptr;
}
HALO_API_CATCH_ALL

void halo_command_buffer_retain(halo_command_buffer_t* command_buffer) {
  retain_checked(as_object(command_buffer), "halo_command_buffer_retain");
}

void halo_command_buffer_release(halo_command_buffer_t* command_buffer) {
  release_checked(as_object(command_buffer), "halo_command_buffer_release");
}

halo_status_t halo_command_buffer_begin(
    halo_command_buffer_t* command_buffer) try {
  static const char kFunction[] = "halo_command_buffer_begin";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, command_buffer_vtable(command_buffer)->begin, command_buffer));
  if (validation::enabled()) [[unlikely]] validation::on_begin(command_buffer);
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_end(
    halo_command_buffer_t* command_buffer) try {
  static const char kFunction[] = "halo_command_buffer_end";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  return call_plugin(kFunction, command_buffer_vtable(command_buffer)->end,
                     command_buffer);
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_barrier(
    halo_command_buffer_t* command_buffer) try {
  static const char kFunction[] = "halo_command_buffer_barrier";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  return call_plugin(kFunction, command_buffer_vtable(command_buffer)->barrier,
                     command_buffer);
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_fill(halo_command_buffer_t* command_buffer,
                                       halo_buffer_t* target, uint64_t offset,
                                       uint64_t length, const void* pattern,
                                       size_t pattern_length) try {
  static const char kFunction[] = "halo_command_buffer_fill";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  HALO_RETURN_IF_ERROR(check_buffer(target, kFunction, "target"));
  if (pattern == nullptr) return null_argument(kFunction, "pattern");
  if (pattern_length != 1 && pattern_length != 2 && pattern_length != 4) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: pattern_length %zu is not 1, 2 or 4",
                              kFunction, pattern_length);
  }
  SharedBufferArguments shared(command_buffer);
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, command_buffer_vtable(command_buffer)->fill, command_buffer,
      shared(target), offset, length, pattern, pattern_length));
  if (validation::enabled()) [[unlikely]] {
    validation::on_access(command_buffer, target, offset, length,
                          /*writes=*/true);
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_update(halo_command_buffer_t* command_buffer,
                                         const void* source,
                                         halo_buffer_t* target,
                                         uint64_t offset, uint64_t length) try {
  static const char kFunction[] = "halo_command_buffer_update";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  HALO_RETURN_IF_ERROR(check_buffer(target, kFunction, "target"));
  if (source == nullptr && length > 0) return null_argument(kFunction, "source");
  SharedBufferArguments shared(command_buffer);
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, command_buffer_vtable(command_buffer)->update, command_buffer,
      source, shared(target), offset, length));
  if (validation::enabled()) [[unlikely]] {
    validation::on_access(command_buffer, target, offset, length,
                          /*writes=*/true);
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_copy(halo_command_buffer_t* command_buffer,
                                       halo_buffer_t* source,
                                       uint64_t source_offset,
                                       halo_buffer_t* target,
                                       uint64_t target_offset,
                                       uint64_t length) try {
  static const char kFunction[] = "halo_command_buffer_copy";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  HALO_RETURN_IF_ERROR(check_buffer(source, kFunction, "source"));
  HALO_RETURN_IF_ERROR(check_buffer(target, kFunction, "target"));
  SharedBufferArguments shared(command_buffer);
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, command_buffer_vtable(command_buffer)->copy, command_buffer,
      shared(source), source_offset, shared(target), target_offset, length));
  if (validation::enabled()) [[unlikely]] {
    validation::on_access(command_buffer, source, source_offset, length,
                          /*writes=*/false);
    validation::on_access(command_buffer, target, target_offset, length,
                          /*writes=*/true);
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_command_buffer_dispatch(
    halo_command_buffer_t* command_buffer,
    const halo_dispatch_params_t* params) try {
  static const char kFunction[] = "halo_command_buffer_dispatch";
  HALO_RETURN_IF_ERROR(check_command_buffer(command_buffer, kFunction));
  if (params == nullptr) return null_argument(kFunction, "params");
  HALO_RETURN_IF_ERROR(check_params_size(params->struct_size,
                                         abi_1_0_size<halo_dispatch_params_t>,
                                         kFunction));
  HALO_RETURN_IF_ERROR(check_executable(params->executable, kFunction));
  if (params->constant_size > 0 && params->constants == nullptr) {
    return null_argument(kFunction, "params->constants");
  }
  if (params->binding_count > 0 && params->bindings == nullptr) {
    return null_argument(kFunction, "params->bindings");
  }
  for (size_t i = 0; i < params->binding_count; ++i) {
    if (validation::enabled()) [[unlikely]] {
      HALO_RETURN_IF_ERROR(validation::check_released_element(
          params->bindings[i].buffer, kFunction, "params->bindings", i));
    }
    HALO_RETURN_IF_ERROR(
        check_buffer(params->bindings[i].buffer, kFunction, "a binding"));
  }
  SharedBufferArguments shared(command_buffer);
  HALO_RETURN_IF_ERROR(call_plugin(
      kFunction, command_buffer_vtable(command_buffer)->dispatch,
      command_buffer, shared.dispatch(params)));
  if (validation::enabled()) [[unlikely]] {
    validation::on_dispatch(command_buffer, *params);
  }
  return nullptr;
}
HALO_API_CATCH_ALL

// --- Executables -----------------------------------------------------------

halo_status_t halo_executable_create(halo_device_t* device,
                                     const halo_executable_params_t* params,
                                     halo_executable_t** out_executable) try {
  static const char kFunction[] = "halo_executable_create";
  HALO_RETURN_IF_ERROR(check_device(device, kFunction));
  if (params == nullptr) return null_argument(kFunction, "params");
  if (out_executable == nullptr) {
    return null_argument(kFunction, "out_executable");
  }
  *out_executable = nullptr;
  HALO_RETURN_IF_ERROR(check_params_size(
      params->struct_size, abi_1_0_size<halo_executable_params_t>, kFunction));
  if (params->format == nullptr) return null_argument(kFunction, "params->format");
  if (params->data == nullptr && params->data_size > 0) {
    return null_argument(kFunction, "params->data");
  }
  const auto* vtable = vtable_of<halo_device_vtable_t>(device);
  if (vtable->create_executable == nullptr) {
    return unimplemented(kFunction, "executables");
  }
  HALO_RETURN_IF_ERROR(call_plugin(kFunction, vtable->create_executable,
                                   device, params, out_executable));
  return adopt_created(kFunction,
                       reinterpret_cast<const void*>(vtable->create_executable),
                       HALO_OBJECT_TYPE_EXECUTABLE, device, out_executable);
}
HALO_API_CATCH_ALL

void halo_executable_retain(halo_executable_t* executable) {
  retain_checked(as_object(executable), "halo_executable_retain");
}

void halo_executable_release(halo_executable_t* executable) {
  release_checked(as_object(executable), "halo_executable_release");
}

halo_status_t halo_executable_entry_point_count(halo_executable_t* executable,
                                                uint32_t* out_count) try {
  static const char kFunction[] = "halo_executable_entry_point_count";
  HALO_RETURN_IF_ERROR(check_executable(executable, kFunction));
  if (out_count == nullptr) return null_argument(kFunction, "out_count");
  *out_count = executable_vtable(executable)->entry_point_count(executable);
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_executable_query_entry_point(
    halo_executable_t* executable, uint32_t ordinal,
    halo_entry_point_info_t* out_info) try {
  static const char kFunction[] = "halo_executable_query_entry_point";
  HALO_RETURN_IF_ERROR(check_executable(executable, kFunction));
  if (out_info == nullptr) return null_argument(kFunction, "out_info");
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_RETURN_IF_ERROR(
      call_plugin(kFunction, executable_vtable(executable)->query_entry_point,
                  executable, ordinal, &info));
  info.name[sizeof(info.name) - 1] = '\0';
  info.struct_size = sizeof(info);
  return copy_out(info, out_info, kFunction);
}
HALO_API_CATCH_ALL

halo_status_t halo_executable_lookup_entry_point(halo_executable_t* executable,
                                                 const char* name,
                                                 uint32_t* out_ordinal) try {
  static const char kFunction[] = "halo_executable_lookup_entry_point";
  HALO_RETURN_IF_ERROR(check_executable(executable, kFunction));
  if (name == nullptr) return null_argument(kFunction, "name");
  if (out_ordinal == nullptr) return null_argument(kFunction, "out_ordinal");
  return call_plugin(kFunction,
                     executable_vtable(executable)->lookup_entry_point,
                     executable, name, out_ordinal);
}
HALO_API_CATCH_ALL

}  // extern "C"
