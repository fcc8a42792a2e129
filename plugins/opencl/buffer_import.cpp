// Imports of external handles as opencl buffers (external.h, ABI 1.3): a
// HOST_ALLOCATION becomes a CL_MEM_USE_HOST_PTR cl_mem over the
// application's memory. The device offers it only on unified memory
// (device_description.cpp says why), where that cl_mem is the memory itself.
#include "buffer.hpp"
#include "cl_status.hpp"
#include "device.hpp"

namespace halo::cl {

halo_status_t Buffer::import(Device* device, const halo_buffer_params_t& params,
                             const halo_external_handle_t& handle,
                             halo_buffer_t** out_buffer) noexcept {
  static const char kFunction[] = "halo_buffer_import";
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_buffer_params(
      host, device->capabilities(), params, kFunction));
  // Only HOST_ALLOCATION reaches here: libhalo passes only the types the
  // capabilities name. The buffer spans the first |params.size| bytes of
  // the allocation; maps then return |handle.host_pointer| plus the offset
  // (OpenCL derives a USE_HOST_PTR buffer's mappings from its host_ptr), so
  // the unchanged map path of every buffer serves it. No destructor
  // callback is set, unlike the aligned allocations of create_memory: the
  // memory is borrowed, and the application frees it after the buffer is
  // destroyed, which the command buffers' and submissions' references hold
  // back until the last work naming it completed.
  cl_int code = CL_SUCCESS;
  cl_mem memory = device->api->clCreateBuffer(
      device->context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
      static_cast<size_t>(params.size), handle.host_pointer, &code);
  if (code != CL_SUCCESS) {
    return host.annotate(cl_status(host, "clCreateBuffer", code), kFunction);
  }
  const sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  HALO_SDK_RETURN_IF_ERROR(adopt(device, facts, memory, out_buffer));
  Buffer::cast(*out_buffer)->imported_memory = handle.host_pointer;
  return HALO_OK;
}

}  // namespace halo::cl
