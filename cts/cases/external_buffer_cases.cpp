// external.capabilities.* and external.buffer.* (export): what a device
// reports it can share (abi/include/halo/device.h, ABI 1.3), and the rules of
// halo_buffer_export and HALO_BUFFER_FLAG_EXPORTABLE (external.h, buffer.h):
// which codes come back for a buffer that cannot be exported, a type the
// device does not export, and bad arguments. The cases that move data
// through shared memory are in external_host_allocation_cases.cpp and
// external_opaque_fd_cases.cpp.
#include <cstddef>

#include "external_helpers.hpp"

namespace {

using namespace halo::cts;

// A type bit the ABI does not define.
constexpr halo_external_handle_type_t kUnknownType = kUnknownHandleType;

void check_known(halo_external_handle_type_t types, const char* member) {
  CTS_ASSERT_MSG((types & ~HALO_EXTERNAL_HANDLE_TYPES_KNOWN) == 0,
                 std::string(member) + " is " + handle_types_text(types) +
                     ", expected only HALO_EXTERNAL_HANDLE_TYPE_* bits (0x7)");
}

HALO_CTS_CASE("external.capabilities.consistent", kNeedNothing,
              "the four handle type sets hold only known bits, host_allocation_alignment is a power of two exactly when buffers import HOST_ALLOCATION (else 0), and a device without buffers or semaphores shares none") {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  check_known(caps.buffer_export_types, "buffer_export_types");
  check_known(caps.buffer_import_types, "buffer_import_types");
  check_known(caps.semaphore_export_types, "semaphore_export_types");
  check_known(caps.semaphore_import_types, "semaphore_import_types");
  const uint64_t alignment = caps.host_allocation_alignment;
  if ((caps.buffer_import_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) != 0) {
    CTS_ASSERT_MSG(alignment != 0 && (alignment & (alignment - 1)) == 0,
                   "buffer_import_types has HOST_ALLOCATION, so host_allocation_alignment "
                   "must be a power of two; it is " + std::to_string(alignment));
  } else {
    CTS_ASSERT_MSG(alignment == 0,
                   "buffer_import_types (" + handle_types_text(caps.buffer_import_types) +
                       ") lack HOST_ALLOCATION, so host_allocation_alignment must be 0; it is " +
                       std::to_string(alignment));
  }
  if ((caps.features & HALO_DEVICE_FEATURE_BUFFERS) == 0) {
    CTS_ASSERT_MSG(caps.buffer_export_types == 0 && caps.buffer_import_types == 0,
                   "a device without HALO_DEVICE_FEATURE_BUFFERS reports buffer_export_types " +
                       handle_types_text(caps.buffer_export_types) + " and buffer_import_types " +
                       handle_types_text(caps.buffer_import_types) + ", expected none");
  }
  if ((caps.features & HALO_DEVICE_FEATURE_SEMAPHORES) == 0) {
    CTS_ASSERT_MSG(caps.semaphore_export_types == 0 && caps.semaphore_import_types == 0,
                   "a device without HALO_DEVICE_FEATURE_SEMAPHORES reports semaphore_export_types " +
                       handle_types_text(caps.semaphore_export_types) +
                       " and semaphore_import_types " +
                       handle_types_text(caps.semaphore_import_types) + ", expected none");
  }
}

// Exports |buffer| as each type of |types| and closes what came back: a
// buffer allocated EXPORTABLE exports as every type the device lists.
void export_every_type(halo_buffer_t* buffer, halo_external_handle_type_t types) {
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) continue;
    const halo_external_handle_t handle = export_buffer(buffer, type);
    if (is_fd_type(type)) close(handle.fd);
  }
}

HALO_CTS_CASE("external.buffer.exportable_needs_support", kNeedBuffers,
              "with no buffer_export_types, allocating with EXPORTABLE is UNIMPLEMENTED; with some, it succeeds (host-visible and device-local memory) and the buffer exports as each listed type") {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  const halo_memory_type_t host = host_memory_type(ctx);
  halo_buffer_params_t params = buffer_params(4096, host, HALO_BUFFER_FLAG_EXPORTABLE);
  if (caps.buffer_export_types == 0) {
    BufferRef buffer;
    CTS_ASSERT_STATUS(halo_buffer_allocate(ctx.device(), &params, buffer.out()),
                      HALO_STATUS_UNIMPLEMENTED);
    CTS_ASSERT(buffer.get() == nullptr);
    return;
  }
  std::vector<halo_memory_type_t> memory_types = {host};
  if ((caps.memory_types & HALO_MEMORY_TYPE_DEVICE_LOCAL) != 0) {
    memory_types.push_back(HALO_MEMORY_TYPE_DEVICE_LOCAL);
  }
  for (halo_memory_type_t memory_type : memory_types) {
    BufferRef buffer = allocate_exportable(ctx.device(), 4096, memory_type);
    CTS_ASSERT_EQ(halo_buffer_size(buffer.get()), uint64_t{4096});
    export_every_type(buffer.get(), caps.buffer_export_types);
  }
}

HALO_CTS_CASE("external.buffer.export_without_flag", kNeedBuffers,
              "exporting a buffer allocated without EXPORTABLE is FAILED_PRECONDITION, for each type in buffer_export_types") {
  const halo_external_handle_type_t types = ctx.capabilities().buffer_export_types;
  if (types == 0) skip("the device's buffer_export_types are none");
  BufferRef buffer = host_buffer(ctx, 4096);
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) continue;
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_STATUS(halo_buffer_export(buffer.get(), type, &handle),
                      HALO_STATUS_FAILED_PRECONDITION);
  }
}

// A buffer to export: EXPORTABLE where the device exports anything, else a
// plain one (no buffer of such a device can be EXPORTABLE).
BufferRef buffer_to_export(Context& ctx) {
  if (ctx.capabilities().buffer_export_types == 0) return host_buffer(ctx, 4096);
  return allocate_exportable(ctx.device(), 4096, host_memory_type(ctx));
}

HALO_CTS_CASE("external.buffer.export_unsupported_type", kNeedBuffers,
              "exporting a buffer as a known type missing from buffer_export_types is UNIMPLEMENTED (an EXPORTABLE buffer where the device exports any type)") {
  const halo_external_handle_type_t types = ctx.capabilities().buffer_export_types;
  const std::vector<halo_external_handle_type_t> lacking = types_lacking(types);
  if (lacking.empty()) skip("the device's buffer_export_types list every known type");
  BufferRef buffer = buffer_to_export(ctx);
  for (halo_external_handle_type_t type : lacking) {
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_STATUS(halo_buffer_export(buffer.get(), type, &handle),
                      HALO_STATUS_UNIMPLEMENTED);
  }
}

HALO_CTS_CASE("external.buffer.export_bad_arguments", kNeedBuffers,
              "halo_buffer_export with a type of 0, two bits or an unknown bit, a NULL out_handle, a struct_size below ABI 1.3's, or a NULL or non-buffer handle is INVALID_ARGUMENT") {
  BufferRef buffer = buffer_to_export(ctx);
  const halo_external_handle_type_t types = ctx.capabilities().buffer_export_types;
  // A type the device exports, where it has one, so that only the argument
  // under test is wrong.
  halo_external_handle_type_t good = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) != 0) {
      good = type;
      break;
    }
  }
  const halo_external_handle_type_t bad_types[] = {
      0, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD | HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION,
      kUnknownType, 1u << 31};
  for (halo_external_handle_type_t type : bad_types) {
    halo_external_handle_t handle = empty_handle();
    CTS_ASSERT_INVALID(halo_buffer_export(buffer.get(), type, &handle), "halo_buffer_export");
  }
  CTS_ASSERT_INVALID(halo_buffer_export(buffer.get(), good, nullptr), "halo_buffer_export");
  for (uint32_t size : {uint32_t{0}, uint32_t{4}, uint32_t{sizeof(halo_external_handle_t) - 1}}) {
    halo_external_handle_t handle = empty_handle();
    handle.struct_size = size;
    CTS_ASSERT_INVALID(halo_buffer_export(buffer.get(), good, &handle), "halo_buffer_export");
  }
  halo_external_handle_t handle = empty_handle();
  CTS_ASSERT_INVALID(halo_buffer_export(nullptr, good, &handle), "halo_buffer_export");
  auto* not_a_buffer = reinterpret_cast<halo_buffer_t*>(ctx.semaphore(0));
  CTS_ASSERT_INVALID(halo_buffer_export(not_a_buffer, good, &handle), "halo_buffer_export");
}

}  // namespace
