// The opencl buffer: allocation, mapping and the buffer vtable.
#include "buffer.hpp"

#include "cl_status.hpp"
#include "device.hpp"
#include "halo/sdk/library_pin.hpp"

namespace halo::cl {
namespace {

using ull = unsigned long long;

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

// Host-visible memory is coherent where the device offers it; elsewhere the
// mapping is published by unmap (OpenCL's rule), so flush and invalidate
// have nothing to add beyond checking their range.
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
    // ABI 1.3: nothing is exported (buffer_export_types is 0), so libhalo
    // refuses EXPORTABLE and answers halo_buffer_export with UNIMPLEMENTED.
    .export_handle = nullptr,
};

Buffer::Buffer(Device* device, const sdk::BufferFacts& facts) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(device->host),
      api(device->api),
      device(device),
      facts(facts),
      mappings_(device->host),
      regions_(sdk::HostAllocator<Region>(device->host)) {
  host.retain(sdk::as_object(device->handle()));
}

Buffer::~Buffer() {
  // Mappings the caller left behind are given back first.
  for (const sdk::MappedRanges::Mapping& mapping : mappings_.all()) {
    host.free(unmap_pointer(mapping.pointer));
  }
  // Last made first: NVIDIA's driver (580) crashes releasing a sub-buffer
  // before a later one that overlaps it.
  for (auto region = regions_.rbegin(); region != regions_.rend(); ++region) {
    api->clReleaseMemObject(region->memory);
  }
  if (memory != nullptr) api->clReleaseMemObject(memory);
  host.release(sdk::as_object(device->handle()));
}

halo_status_t Buffer::region(uint64_t offset, uint64_t length,
                             cl_mem* out) noexcept {
  std::lock_guard<std::mutex> lock(regions_mutex_);
  for (const Region& region : regions_) {
    if (region.offset == offset && region.length == length) {
      *out = region.memory;
      return HALO_OK;
    }
  }
  return HALO_SDK_TRY(host, {
    regions_.reserve(regions_.size() + 1);  // Throws before creating.
    const cl_buffer_region bounds = {static_cast<size_t>(offset),
                                     static_cast<size_t>(length)};
    cl_int code = CL_SUCCESS;
    cl_mem memory = api->clCreateSubBuffer(
        this->memory, 0, CL_BUFFER_CREATE_TYPE_REGION, &bounds, &code);
    HALO_CL_RETURN_IF_ERROR(host, "clCreateSubBuffer", code);
    regions_.push_back(Region{offset, length, memory});
    *out = memory;
    return HALO_OK;
  });
}

namespace {

// The host memory of a CL_MEM_USE_HOST_PTR buffer and the host interface
// whose allocator it came from: registries may give this library different
// allocators (halo_registry_options_t::allocator), so the SDK's current
// host, the last one given, may not be the buffer's.
struct HostMemory {
  sdk::Host host;
  void* memory;
};

// Frees the host memory of a CL_MEM_USE_HOST_PTR buffer once OpenCL is
// done with it (the destructor callback runs when the memory object is
// really deleted, which may be after the last release).
void CL_CALLBACK free_host_memory(cl_mem, void* user_data) {
  sdk::pin_library_to_current_thread();
  auto* block = static_cast<HostMemory*>(user_data);
  const sdk::Host host = block->host;
  host.deallocate(block->memory);
  host.destroy(block);
}

// Creates the cl_mem of a buffer. Host-visible memory is
// CL_MEM_ALLOC_HOST_PTR memory, whose mappings the implementation aligns to
// the device's base address alignment; a larger alignment is honoured with
// CL_MEM_USE_HOST_PTR over memory of the host allocator, which the
// mappings then point into.
halo_status_t create_memory(Device* device, const halo_buffer_params_t& params,
                            cl_mem* out) {
  sdk::Host host = device->host;
  const Api& api = *device->api;
  const size_t size = static_cast<size_t>(params.size);
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  void* host_memory = nullptr;
  HostMemory* block = nullptr;
  if (params.memory_type & HALO_MEMORY_TYPE_HOST_VISIBLE) {
    if (params.alignment > device->capabilities().min_buffer_alignment) {
      host_memory = host.allocate(size, static_cast<size_t>(params.alignment));
      block = static_cast<HostMemory*>(
          host.allocate(sizeof(HostMemory), alignof(HostMemory)));
      if (host_memory == nullptr || block == nullptr) {
        host.deallocate(host_memory);
        host.deallocate(block);
        return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                                "halo_buffer_allocate: out of host memory "
                                "for %zu bytes",
                                size);
      }
      ::new (block) HostMemory{host, host_memory};
      flags |= CL_MEM_USE_HOST_PTR;
    } else {
      flags |= CL_MEM_ALLOC_HOST_PTR;
    }
  }
  cl_int code = CL_SUCCESS;
  cl_mem memory =
      api.clCreateBuffer(device->context(), flags, size, host_memory, &code);
  if (code == CL_SUCCESS && host_memory != nullptr) {
    code = api.clSetMemObjectDestructorCallback(memory, &free_host_memory,
                                                block);
    if (code != CL_SUCCESS) api.clReleaseMemObject(memory);
  }
  if (code != CL_SUCCESS) {
    host.deallocate(host_memory);
    host.destroy(block);
    return host.annotate(cl_status(host, "clCreateBuffer", code),
                         "halo_buffer_allocate");
  }
  *out = memory;
  return HALO_OK;
}

}  // namespace

halo_status_t Buffer::adopt(Device* device, const sdk::BufferFacts& facts,
                            cl_mem memory, halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  Buffer* buffer = nullptr;
  halo_status_t status =
      sdk::guard(host, [&] { buffer = host.make<Buffer>(device, facts); });
  if (status != HALO_OK) {
    device->api->clReleaseMemObject(memory);
    return status;
  }
  buffer->memory = memory;
  *out_buffer = buffer->handle();
  return HALO_OK;
}

halo_status_t Buffer::create(Device* device, const halo_buffer_params_t& params,
                             halo_buffer_t** out_buffer) noexcept {
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_buffer_params(host, device->capabilities(), params));
  sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  cl_mem memory = nullptr;
  HALO_SDK_RETURN_IF_ERROR(create_memory(device, params, &memory));
  return adopt(device, facts, memory, out_buffer);
}

halo_status_t Buffer::map(uint64_t offset, uint64_t length,
                          void** out) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_map(host, facts, offset, &length));
  // OpenCL maps no empty range; an empty mapping needs no memory.
  void* pointer = nullptr;
  if (length != 0) {
    cl_int code = CL_SUCCESS;
    pointer = api->clEnqueueMapBuffer(
        device->cl_map_queue, memory, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
        static_cast<size_t>(offset), static_cast<size_t>(length), 0, nullptr,
        nullptr, &code);
    if (code != CL_SUCCESS) {
      return host.annotate(cl_status(host, "clEnqueueMapBuffer", code),
                           "halo_buffer_map_range");
    }
  }
  halo_status_t status =
      sdk::guard(host, [&] { mappings_.add({offset, length, pointer}); });
  if (status != HALO_OK) {
    host.free(unmap_pointer(pointer));
    return status;
  }
  *out = pointer;
  return HALO_OK;
}

halo_status_t Buffer::unmap_pointer(void* pointer) noexcept {
  if (pointer == nullptr) return HALO_OK;
  cl_event event = nullptr;
  cl_int code = api->clEnqueueUnmapMemObject(device->cl_map_queue, memory,
                                             pointer, 0, nullptr, &event);
  if (code == CL_SUCCESS) {
    // Wait, so that device work submitted after unmap sees the writes.
    code = api->clWaitForEvents(1, &event);
    api->clReleaseEvent(event);
  }
  return cl_status(host, "clEnqueueUnmapMemObject", code);
}

halo_status_t Buffer::unmap(uint64_t offset, uint64_t length) noexcept {
  static const char kFunction[] = "halo_buffer_unmap_range";
  HALO_SDK_RETURN_IF_ERROR(
      sdk::check_host_range(host, kFunction, facts, offset, &length));
  sdk::MappedRanges::Mapping mapping;
  HALO_SDK_RETURN_IF_ERROR(
      mappings_.remove(host, kFunction, offset, length, &mapping));
  return host.annotate(unmap_pointer(mapping.pointer), kFunction);
}

}  // namespace halo::cl
