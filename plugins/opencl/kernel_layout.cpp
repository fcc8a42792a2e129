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

// The longest kernel name an entry point holds.
constexpr size_t kMaxNameLength = sizeof(halo_entry_point_info_t::name) - 1;
// How much of a name too long to keep a status message names.
constexpr int kNamePrefix = 32;

// Reads a text property through |query| (an OpenCL info call, |call|, as
// (size, value, size_ret)) into |out| (|capacity| bytes, NUL-terminated),
// asking its size first: OpenCL refuses a buffer too small with
// CL_INVALID_VALUE. Stores the text's length in |*length|; when that is
// |capacity| or more, |out| holds the text's beginning.
template <class Query>
halo_status_t read_text(sdk::Host host, const char* call, const Query& query,
                        char* out, size_t capacity, size_t* length) {
  out[0] = '\0';
  size_t size = 0;
  cl_int code = query(0, nullptr, &size);
  *length = size > 0 ? size - 1 : 0;
  if (code == CL_SUCCESS && size > 0 && size <= capacity) {
    code = query(size, out, nullptr);
  } else if (code == CL_SUCCESS && size > capacity) {
    char* text = static_cast<char*>(host.allocate(size, 1));
    if (text == nullptr) {
      return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "halo_executable_create: %s: out of memory for "
                              "%zu bytes",
                              call, size);
    }
    code = query(size, text, nullptr);
    if (code == CL_SUCCESS) std::memcpy(out, text, capacity - 1);
    host.deallocate(text);
  }
  out[capacity - 1] = '\0';
  return host.annotate(cl_status(host, call, code), "halo_executable_create");
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
  HALO_SDK_RETURN_IF_ERROR(arg_info(host, api, entry->kernel, index,
                                    CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                    sizeof(address), &address));
  // Only a scalar's type name matters (a binding's type is free), and every
  // scalar type the layout takes has a short one: a longer name is kept
  // only in part, for messages.
  char type[128] = {};
  size_t type_length = 0;
  HALO_SDK_RETURN_IF_ERROR(read_text(
      host, "clGetKernelArgInfo(CL_KERNEL_ARG_TYPE_NAME)",
      [&](size_t size, void* value, size_t* size_ret) {
        return api.clGetKernelArgInfo(entry->kernel, index,
                                      CL_KERNEL_ARG_TYPE_NAME, size, value,
                                      size_ret);
      },
      type, sizeof(type), &type_length));
  const bool type_whole = type_length < sizeof(type);
  halo_entry_point_info_t& info = entry->info;
  if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL) {
    if (entry->constant_count > 0) {
      return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                              "halo_executable_create: kernel '%s' parameter "
                              "%u (%.*s%s) is a __global pointer after a "
                              "scalar; buffers must come first",
                              info.name, index,
                              type_whole ? static_cast<int>(type_length)
                                         : kNamePrefix,
                              type, type_whole ? "" : "...");
    }
    ++info.binding_count;
    return HALO_OK;
  }
  if (!type_whole) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: kernel '%s' parameter %u "
                            "has a type name of %zu bytes ('%.*s...'), more "
                            "than the %zu bytes of the longest the opencl "
                            "plugin reads; it binds only __global pointers "
                            "and 32- or 64-bit int, uint, long, ulong, float "
                            "or double",
                            info.name, index, type_length, kNamePrefix, type,
                            sizeof(type) - 1);
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
  size_t name_length = 0;
  HALO_SDK_RETURN_IF_ERROR(read_text(
      host, "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)",
      [&](size_t size, void* value, size_t* size_ret) {
        return api.clGetKernelInfo(entry->kernel, CL_KERNEL_FUNCTION_NAME,
                                   size, value, size_ret);
      },
      info.name, sizeof(info.name), &name_length));
  if (name_length > kMaxNameLength) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "halo_executable_create: kernel '%.*s...' has a "
                            "name of %zu bytes; entry point names are at most "
                            "%zu bytes",
                            kNamePrefix, info.name, name_length,
                            kMaxNameLength);
  }
  cl_uint count = 0;
  cl_int code = api.clGetKernelInfo(entry->kernel, CL_KERNEL_NUM_ARGS,
                                    sizeof(count), &count, nullptr);
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
  // The size comes from 32-bit operands (reqd_work_group_size's in OpenCL C,
  // LocalSize's in SPIR-V), so each dimension fits the reported uint32_t.
  for (int i = 0; i < 3; ++i) {
    info.workgroup_size[i] = static_cast<uint32_t>(entry->local_size[i]);
  }
  return HALO_OK;
}

}  // namespace halo::cl
