// The cpu buffer's vtable: allocation, import, export, size and mapping.
// The memory is ordinary host memory that the device and the host share, so
// mapping hands out a pointer into it, flush, invalidate and unmap only
// check their range, and sharing it with another device is handing over
// the pointer (HOST_ALLOCATION).
#include "buffer.hpp"

#include <unistd.h>

#include <algorithm>

#include "halo/sdk/external.hpp"

namespace halo::cpu {
namespace {

void destroy_buffer(halo_object_t* object) {
  Buffer* buffer = sdk::object_cast<Buffer>(object);
  sdk::Host host = buffer->host;
  host.destroy(buffer);
}

uint64_t buffer_size(halo_buffer_t* buffer) {
  return Buffer::cast(buffer)->facts.size;
}

halo_status_t map_range(halo_buffer_t* buffer, uint64_t offset,
                        uint64_t length, void** out_pointer) {
  Buffer* self = Buffer::cast(buffer);
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_map(self->host, self->facts, offset, &length));
  HALO_SDK_RETURN_IF_ERROR(sdk::guard(
      self->host, [&] { self->mappings.add({offset, length, nullptr}); }));
  *out_pointer = self->data + offset;
  return HALO_OK;
}

// Unmap, flush and invalidate have nothing to do on coherent host memory;
// they still refuse what every plugin refuses.
halo_status_t check_range(halo_buffer_t* buffer, const char* function,
                          uint64_t offset, uint64_t length) {
  Buffer* self = Buffer::cast(buffer);
  return sdk::check_host_range(self->host, function, self->facts, offset,
                               &length);
}

halo_status_t unmap_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  static const char kFunction[] = "halo_buffer_unmap_range";
  Buffer* self = Buffer::cast(buffer);
  HALO_SDK_RETURN_IF_ERROR(sdk::check_host_range(self->host, kFunction,
                                                 self->facts, offset, &length));
  sdk::MappedRanges::Mapping mapping;
  return self->mappings.remove(self->host, kFunction, offset, length,
                               &mapping);
}

halo_status_t flush_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  return check_range(buffer, "halo_buffer_flush_range", offset, length);
}

halo_status_t invalidate_range(halo_buffer_t* buffer, uint64_t offset,
                               uint64_t length) {
  return check_range(buffer, "halo_buffer_invalidate_range", offset, length);
}

halo_status_t export_handle(halo_buffer_t* buffer,
                            halo_external_handle_type_t type,
                            halo_external_handle_t* out_handle) {
  Buffer* self = Buffer::cast(buffer);
  HALO_SDK_RETURN_IF_ERROR(sdk::check_export(
      self->host, "halo_buffer_export", "buffer", self->exportable,
      HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, type));
  sdk::fill_host_handle(self->data, self->allocation_size, out_handle);
  return HALO_OK;
}

// An EXPORTABLE buffer is placed on whole pages, so that a device that
// imports host allocations at page granularity (Vulkan's
// minImportedHostPointerAlignment, OpenCL's USE_HOST_PTR) can import it.
uint64_t page_size() {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<uint64_t>(size) : 4096;
}

}  // namespace

const halo_buffer_vtable_t Buffer::kVtable = {
    .object = {.struct_size = sizeof(halo_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = &destroy_buffer},
    .size = &buffer_size,
    .map_range = &map_range,
    .unmap_range = &unmap_range,
    .flush_range = &flush_range,
    .invalidate_range = &invalidate_range,
    .export_handle = &export_handle,
};

Buffer::Buffer(sdk::Host host, halo_device_t* device,
               const sdk::BufferFacts& facts, uint8_t* data,
               uint64_t allocation_size, bool owns_data,
               bool exportable) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      device(device),
      facts(facts),
      data(data),
      allocation_size(allocation_size),
      owns_data(owns_data),
      exportable(exportable),
      mappings(host) {
  host.retain(sdk::as_object(device));
}

Buffer::~Buffer() {
  if (owns_data) host.deallocate(data);
  host.release(sdk::as_object(device));
}

halo_status_t Buffer::allocate(sdk::Host host, halo_device_t* device,
                               const halo_device_capabilities_t& caps,
                               const halo_buffer_params_t& params,
                               halo_buffer_t** out_buffer) noexcept {
  static const char kFunction[] = "halo_buffer_allocate";
  HALO_SDK_RETURN_IF_ERROR(sdk::check_buffer_params(host, caps, params));
  const bool exportable = (params.flags & HALO_BUFFER_FLAG_EXPORTABLE) != 0;
  uint64_t alignment = std::max(params.alignment, kMinBufferAlignment);
  uint64_t allocation_size = params.size;
  if (exportable) {
    const uint64_t page = page_size();
    alignment = std::max(alignment, page);
    allocation_size = (params.size + page - 1) / page * page;
  }
  if (alignment > kMaxBufferAlignment) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: params->alignment %llu exceeds the cpu "
                            "device's largest supported alignment %llu",
                            kFunction,
                            static_cast<unsigned long long>(alignment),
                            static_cast<unsigned long long>(
                                kMaxBufferAlignment));
  }
  // check_buffer_params bounded the size by max_buffer_size, which fits
  // size_t; the allocator reports failure as NULL, never by aborting.
  void* data = host.allocate(static_cast<size_t>(allocation_size),
                             static_cast<size_t>(alignment));
  if (data == nullptr) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: the host allocator could not provide %llu "
                            "bytes aligned to %llu",
                            kFunction,
                            static_cast<unsigned long long>(allocation_size),
                            static_cast<unsigned long long>(alignment));
  }
  sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  halo_status_t status = sdk::guard(host, [&] {
    *out_buffer = host.make<Buffer>(host, device, facts,
                                    static_cast<uint8_t*>(data),
                                    allocation_size, true, exportable)
                      ->handle();
  });
  if (status != HALO_OK) host.deallocate(data);
  return status;
}

halo_status_t Buffer::import(sdk::Host host, halo_device_t* device,
                             const halo_device_capabilities_t& caps,
                             const halo_buffer_params_t& params,
                             const halo_external_handle_t& handle,
                             halo_buffer_t** out_buffer) noexcept {
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_buffer_params(host, caps, params, "halo_buffer_import"));
  sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  return sdk::guard(host, [&] {
    *out_buffer = host.make<Buffer>(host, device, facts,
                                    static_cast<uint8_t*>(handle.host_pointer),
                                    handle.size, false, false)
                      ->handle();
  });
}

halo_status_t Buffer::resolve(sdk::Host host, halo_buffer_t* buffer,
                              halo_device_t* device, const char* function,
                              const char* argument, Buffer** out) noexcept {
  Buffer* self = from(buffer);
  if (self == nullptr) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s is a buffer of another plugin; the cpu "
                            "device only uses its own buffers",
                            function, argument);
  }
  if (self->device != device) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s belongs to another device", function,
                            argument);
  }
  *out = self;
  return HALO_OK;
}

}  // namespace halo::cpu
