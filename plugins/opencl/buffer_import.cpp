// Imports of external handles as opencl buffers (external.h, ABI 1.3):
// - a HOST_ALLOCATION becomes a CL_MEM_USE_HOST_PTR cl_mem over the
//   application's memory, offered only on unified memory
//   (device_description.cpp says why), where that cl_mem is the memory
//   itself;
// - an OPAQUE_FD becomes a cl_mem over the other API's device memory
//   (cl_khr_external_memory_opaque_fd), which submissions acquire and
//   release around the commands that name it (submission.hpp).
#include <unistd.h>

#include "buffer.hpp"
#include "cl_status.hpp"
#include "device.hpp"
#include "halo/sdk/external.hpp"

namespace halo::cl {

halo_status_t Buffer::import(Device* device, const halo_buffer_params_t& params,
                             const halo_external_handle_t& handle,
                             halo_buffer_t** out_buffer) noexcept {
  static const char kFunction[] = "halo_buffer_import";
  sdk::Host host = device->host;
  HALO_SDK_RETURN_IF_ERROR(sdk::check_buffer_params(
      host, device->capabilities(), params, kFunction));
  if (handle.type == HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) {
    return import_device_memory(device, params, handle, out_buffer);
  }
  // Only HOST_ALLOCATION is left: libhalo passes only the types the
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

halo_status_t Buffer::import_device_memory(Device* device,
                                           const halo_buffer_params_t& params,
                                           const halo_external_handle_t& handle,
                                           halo_buffer_t** out_buffer) noexcept {
  static const char kFunction[] = "halo_buffer_import";
  sdk::Host host = device->host;
  // The other API's device memory, which the host does not map here.
  if (params.memory_type != HALO_MEMORY_TYPE_DEVICE_LOCAL) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: params->memory_type 0x%x: an OPAQUE_FD is imported as "
        "DEVICE_LOCAL memory only on this device",
        kFunction, params.memory_type);
  }
  // OpenCL owns the fd it is given once the cl_mem is made, and closes it
  // when the cl_mem is released (NVIDIA's driver 580 does), also when the
  // wrapping fails below. So it is given a duplicate, and the handle's fd,
  // which a failed import leaves with the caller (external.h), is closed
  // only once everything succeeded.
  sdk::OwnedFd fd;
  HALO_SDK_RETURN_IF_ERROR(
      sdk::duplicate_fd(host, kFunction, handle.fd, &fd));
  cl_device_id id = device->description->device;
  const cl_mem_properties properties[] = {
      CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
      static_cast<cl_mem_properties>(fd.get()),
      CL_DEVICE_HANDLE_LIST_KHR,
      reinterpret_cast<cl_mem_properties>(id),
      CL_DEVICE_HANDLE_LIST_END_KHR,
      0};
  cl_int code = CL_SUCCESS;
  cl_mem memory = device->api->clCreateBufferWithProperties(
      device->context(), properties, CL_MEM_READ_WRITE,
      static_cast<size_t>(params.size), nullptr, &code);
  if (code != CL_SUCCESS) {
    return host.annotate(cl_status(host, "clCreateBufferWithProperties", code),
                         kFunction);
  }
  fd.release();  // OpenCL's now.
  const sdk::BufferFacts facts{params.size, params.usage, params.memory_type};
  HALO_SDK_RETURN_IF_ERROR(adopt(device, facts, memory, out_buffer));
  Buffer::cast(*out_buffer)->external = true;
  close(handle.fd);  // The import's own now (external.h).
  return HALO_OK;
}

}  // namespace halo::cl
