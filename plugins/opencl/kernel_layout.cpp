// Kernel parameter layout (see kernel_layout.hpp).
#include "kernel_layout.hpp"

#include <cstdio>
#include <cstring>

#include "cl_status.hpp"

namespace halo::cl {
namespace {

// Returns the size of scalar |type| (an OpenCL C type name) in bytes, or 0
// when the layout has no place for it.
uint32_t scalar_size(const char* type) {
  static const char* const k32[] = {"int", "uint", "unsigned int", "float"};
  static const char* const k64[] = {"long", "ulong", "unsigned long",
                                    "double"};
  for (const char* name : k32) {
    if (std::strcmp(type, name) == 0) return 4;
  }
  for (const char* name : k64) {
    if (std::strcmp(type, name) == 0) return 8;
  }
  return 0;
}

halo_status_t arg_info(sdk::Host host, const Api& api, cl_kernel kernel,
                       cl_uint index, cl_kernel_arg_info what, size_t size,
                       void* out) {
  cl_int code = api.clGetKernelArgInfo(kernel, index, what, size, out, nullptr);
  return host.annotate(cl_status(host, "clGetKernelArgInfo", code),
                       "halo_executable_create");
}

// Adds parameter |index| of |entry|'s kernel to the layout.
halo_status_t add_parameter(sdk::Host host, const Api& api, cl_uint index,
                            EntryPoint* entry) {
  cl_kernel_arg_address_qualifier address = 0;
  char type[128] = {};
  HALO_SDK_RETURN_IF_ERROR(arg_info(host, api, entry->kernel, index,
                                    CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                    sizeof(address), &address));
  HALO_SDK_RETURN_IF_ERROR(arg_info(host, api, entry->kernel, index,
                                    CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1,
                                    type));
  halo_entry_point_info_t& info = entry->info;
  if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL) {
    if (entry->constant_count > 0) {
      return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                              "halo_executable_create: kernel '%s' parameter "
                              "%u (%s) is a __global pointer after a scalar; "
                              "buffers must come first",
                              info.name, index, type);
    }
    ++info.binding_count;
    return HALO_OK;
  }
  uint32_t size = address == CL_KERNEL_ARG_ADDRESS_PRIVATE ? scalar_size(type)
                                                           : 0;
  if (size == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: kernel '%s' parameter %u "
                            "(%s) is neither a __global pointer nor a 32- or "
                            "64-bit int, uint, long, ulong, float or double",
                            info.name, index, type);
  }
  uint32_t offset = (info.constant_size + size - 1) / size * size;
  entry->constant_offsets[entry->constant_count] = offset;
  entry->constant_sizes[entry->constant_count] = static_cast<uint8_t>(size);
  ++entry->constant_count;
  info.constant_size = offset + size;
  return HALO_OK;
}

}  // namespace

halo_status_t describe_kernel(sdk::Host host, const Api& api,
                              cl_device_id device, EntryPoint* entry) noexcept {
  halo_entry_point_info_t& info = entry->info;
  info.struct_size = sizeof(info);
  cl_int code = api.clGetKernelInfo(entry->kernel, CL_KERNEL_FUNCTION_NAME,
                                    sizeof(info.name) - 1, info.name, nullptr);
  HALO_CL_RETURN_IF_ERROR(host, "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)",
                          code);
  cl_uint count = 0;
  code = api.clGetKernelInfo(entry->kernel, CL_KERNEL_NUM_ARGS, sizeof(count),
                             &count, nullptr);
  HALO_CL_RETURN_IF_ERROR(host, "clGetKernelInfo(CL_KERNEL_NUM_ARGS)", code);
  if (count > kMaxKernelParameters) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: kernel '%s' takes %u "
                            "parameters; at most %u are supported",
                            info.name, count, kMaxKernelParameters);
  }
  for (cl_uint i = 0; i < count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(add_parameter(host, api, i, entry));
  }
  code = api.clGetKernelWorkGroupInfo(
      entry->kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
      sizeof(entry->local_size), entry->local_size, nullptr);
  HALO_CL_RETURN_IF_ERROR(
      host, "clGetKernelWorkGroupInfo(CL_KERNEL_COMPILE_WORK_GROUP_SIZE)",
      code);
  if (entry->local_size[0] == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: kernel '%s' declares no "
                            "__attribute__((reqd_work_group_size(x, y, z))); "
                            "halo dispatches count workgroups, so every entry "
                            "point must fix its size",
                            info.name);
  }
  return HALO_OK;
}

}  // namespace halo::cl
