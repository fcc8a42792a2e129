// The cuda buffer: allocation, mapping and the buffer vtable.
#include "buffer.hpp"

#include <unistd.h>

#include "cuda_status.hpp"
#include "device.hpp"
#include "halo/sdk/external.hpp"

namespace halo::cuda {
namespace {

void destroy_buffer(halo_object_t* object) {
  Buffer* buffer = sdk::object_cast<Buffer>(object);
  sdk::Host host = buffer->host;
  host.destroy(buffer);
}

uint64_t size(halo_buffer_t* buffer) { return Buffer::cast(buffer)->facts.size; }

halo_status_t map_range(halo_buffer_t* buffer, uint64_t offset,
                        uint64_t length, void** out_pointer) {
  return Buffer::cast(buffer)->map(offset, length, out_pointer);
}

halo_status_t unmap_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  return Buffer::cast(buffer)->unmap(offset, length);
}

// Host-visible memory is coherent: flush and invalidate have nothing to do
// beyond checking their range.
halo_status_t check_host_range(halo_buffer_t* buffer, const char* function,
                               uint64_t offset, uint64_t length) {
  Buffer* self = Buffer::cast(buffer);
  return sdk::check_host_range(self->host, function, self->facts, offset,
                               &length);
}

halo_status_t flush_range(halo_buffer_t* buffer, uint64_t offset,
                          uint64_t length) {
  return check_host_range(buffer, "halo_buffer_flush_range", offset, length);
}

halo_status_t invalidate_range(halo_buffer_t* buffer, uint64_t offset,
                               uint64_t length) {
  return check_host_range(buffer, "halo_buffer_invalidate_range", offset,
                          length);
}

uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

}  // namespace

const halo_buffer_vtable_t Buffer::kVtable = {
    .object = {.struct_size = sizeof(halo_buffer_vtable_t),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = &destroy_buffer},
    .size = &size,
    .map_range = &map_range,
    .unmap_range = &unmap_range,
    .flush_range = &flush_range,
    .invalidate_range = &invalidate_range,
    // Nothing is exported (buffer_export_types is 0).
    .export_handle = nullptr,
};

Buffer::Buffer(Device* device, const sdk::BufferFacts& facts) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(device->host),
      api(device->api),
      device(device),
      facts(facts),
      mappings_(device->host) {
  host.retain(sdk::as_object(device->handle()));
}

Buffer::~Buffer() {
  if (device_allocation_ != 0 || host_allocation_ != nullptr ||
      registered_ != nullptr || external_memory_ != nullptr) {
    ContextScope scope(*api, device->context);
    if (host_allocation_ != nullptr) api->cuMemFreeHost(host_allocation_);
    // An imported memory's mapping goes before the memory itself.
    if (device_allocation_ != 0) api->cuMemFree(device_allocation_);
    if (external_memory_ != nullptr) {
      api->cuDestroyExternalMemory(external_memory_);
    }
    if (registered_ != nullptr) {
      device->host_registrations.release(*api, registered_);
    }
  }
  host.release(sdk::as_object(device->handle()));
}

halo_status_t Buffer::allocate(uint64_t alignment) noexcept {
  // The driver aligns allocations to 256 bytes (pinned host memory to a
  // page); a larger alignment is had by allocating that much more.
  const uint64_t extra = alignment > device->capabilities().min_buffer_alignment
                             ? alignment
                             : 0;
  uint64_t total = 0;
  if (__builtin_add_overflow(facts.size, extra, &total) || total > SIZE_MAX) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "halo_buffer_allocate: params->size %llu with "
                            "alignment %llu overflows",
                            static_cast<unsigned long long>(facts.size),
                            static_cast<unsigned long long>(alignment));
  }
  ContextScope scope(*api, device->context);
  if (facts.memory_type & HALO_MEMORY_TYPE_HOST_VISIBLE) {
    HALO_SDK_RETURN_IF_ERROR(host.annotate(
        cuda_status(host, *api, "cuMemHostAlloc",
                    api->cuMemHostAlloc(&host_allocation_,
                                        static_cast<size_t>(total),
                                        CU_MEMHOSTALLOC_PORTABLE |
                                            CU_MEMHOSTALLOC_DEVICEMAP)),
        "halo_buffer_allocate"));
    CUdeviceptr base = 0;
    HALO_CUDA_RETURN_IF_ERROR(
        host, *api, "cuMemHostGetDevicePointer",
        api->cuMemHostGetDevicePointer(&base, host_allocation_, 0));
    const uint64_t host_base = reinterpret_cast<uintptr_t>(host_allocation_);
    const uint64_t skip = extra == 0 ? 0 : align_up(host_base, alignment) - host_base;
    host_pointer = static_cast<unsigned char*>(host_allocation_) + skip;
    address = base + skip;
    return HALO_OK;
  }
  HALO_SDK_RETURN_IF_ERROR(host.annotate(
      cuda_status(host, *api, "cuMemAlloc",
                  api->cuMemAlloc(&device_allocation_,
                                  static_cast<size_t>(total))),
      "halo_buffer_allocate"));
  address = extra == 0 ? device_allocation_
                       : align_up(device_allocation_, alignment);
  return HALO_OK;
}

halo_status_t Buffer::create(Device* device, const halo_buffer_params_t& params,
                             halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_buffer_params(host, device->capabilities(), params));
  const sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  return HALO_SDK_TRY(host, {
    Buffer* buffer = host.make<Buffer>(device, facts);
    halo_status_t status = buffer->allocate(params.alignment);
    if (status != HALO_OK) {
      host.destroy(buffer);
      return status;
    }
    *out_buffer = buffer->handle();
    return HALO_OK;
  });
}

namespace {
constexpr char kImport[] = "halo_buffer_import";
}  // namespace

halo_status_t Buffer::import(Device* device, const halo_buffer_params_t& params,
                             const halo_external_handle_t& handle,
                             halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_buffer_params(
      host, device->capabilities(), params, kImport));
  if (handle.type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD &&
      (params.memory_type & HALO_MEMORY_TYPE_HOST_VISIBLE)) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->memory_type 0x%x is HOST_VISIBLE, but memory imported "
        "from an OPAQUE_FD is device memory CUDA does not map for the host",
        kImport, params.memory_type);
  }
  const sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  return HALO_SDK_TRY(host, {
    Buffer* buffer = host.make<Buffer>(device, facts);
    ContextScope scope(*device->api, device->context);
    halo_status_t status = handle.type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD
                               ? buffer->import_fd(handle)
                               : buffer->import_host(handle);
    if (status != HALO_OK) {
      host.destroy(buffer);
      return status;
    }
    // The import succeeded, so the fd it was given is the plugin's to
    // close (external.h); CUDA holds its own copy.
    if (handle.type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) close(handle.fd);
    *out_buffer = buffer->handle();
    return HALO_OK;
  });
}

halo_status_t Buffer::import_host(const halo_external_handle_t& handle) noexcept {
  halo_status_t status = device->host_registrations.acquire(
      host, *api, handle.host_pointer, static_cast<size_t>(handle.size),
      &address);
  if (status != HALO_OK) return host.annotate(status, kImport);
  registered_ = handle.host_pointer;
  host_pointer = static_cast<unsigned char*>(handle.host_pointer);
  return HALO_OK;
}

halo_status_t Buffer::import_fd(const halo_external_handle_t& handle) noexcept {
  // CUDA takes the fd only when the import succeeds, and the mapping after
  // it can still fail: import a copy, so that the caller's fd stays open
  // until the whole import has succeeded.
  sdk::OwnedFd fd;
  HALO_SDK_RETURN_IF_ERROR(sdk::duplicate_fd(host, kImport, handle.fd, &fd));
  CUDA_EXTERNAL_MEMORY_HANDLE_DESC memory = {};
  memory.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
  memory.handle.fd = fd.get();
  memory.size = handle.size;
  if (handle.flags & HALO_EXTERNAL_HANDLE_FLAG_DEDICATED) {
    memory.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
  }
  HALO_SDK_RETURN_IF_ERROR(host.annotate(
      cuda_status(host, *api, "cuImportExternalMemory",
                  api->cuImportExternalMemory(&external_memory_, &memory)),
      kImport));
  fd.release();  // The external memory owns it now.
  // The whole memory is mapped: an importer of a dedicated allocation must
  // not map less, and the buffer's bytes are its first params->size.
  CUDA_EXTERNAL_MEMORY_BUFFER_DESC mapping = {};
  mapping.offset = 0;
  mapping.size = handle.size;
  HALO_SDK_RETURN_IF_ERROR(host.annotate(
      cuda_status(host, *api, "cuExternalMemoryGetMappedBuffer",
                  api->cuExternalMemoryGetMappedBuffer(&device_allocation_,
                                                       external_memory_,
                                                       &mapping)),
      kImport));
  address = device_allocation_;
  return HALO_OK;
}

halo_status_t Buffer::map(uint64_t offset, uint64_t length,
                          void** out) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_map(host, facts, offset, &length));
  void* pointer = host_pointer + offset;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::guard(host, [&] { mappings_.add({offset, length, pointer}); }));
  *out = pointer;
  return HALO_OK;
}

halo_status_t Buffer::unmap(uint64_t offset, uint64_t length) noexcept {
  static const char kFunction[] = "halo_buffer_unmap_range";
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_host_range(host, kFunction, facts, offset, &length));
  sdk::MappedRanges::Mapping mapping;
  return mappings_.remove(host, kFunction, offset, length, &mapping);
}

}  // namespace halo::cuda
