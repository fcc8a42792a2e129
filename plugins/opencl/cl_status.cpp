// Names of OpenCL error codes and their halo status codes.
#include "cl_status.hpp"

#include <CL/cl_ext.h>

namespace halo::cl {
namespace {

// Every error code of the OpenCL 3.0 headers, plus the ICD loader's.
#define HALO_CL_ERROR_LIST(X)                  \
  X(CL_SUCCESS)                                \
  X(CL_DEVICE_NOT_FOUND)                       \
  X(CL_DEVICE_NOT_AVAILABLE)                   \
  X(CL_COMPILER_NOT_AVAILABLE)                 \
  X(CL_MEM_OBJECT_ALLOCATION_FAILURE)          \
  X(CL_OUT_OF_RESOURCES)                       \
  X(CL_OUT_OF_HOST_MEMORY)                     \
  X(CL_PROFILING_INFO_NOT_AVAILABLE)           \
  X(CL_MEM_COPY_OVERLAP)                       \
  X(CL_IMAGE_FORMAT_MISMATCH)                  \
  X(CL_IMAGE_FORMAT_NOT_SUPPORTED)             \
  X(CL_BUILD_PROGRAM_FAILURE)                  \
  X(CL_MAP_FAILURE)                            \
  X(CL_MISALIGNED_SUB_BUFFER_OFFSET)           \
  X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) \
  X(CL_COMPILE_PROGRAM_FAILURE)                \
  X(CL_LINKER_NOT_AVAILABLE)                   \
  X(CL_LINK_PROGRAM_FAILURE)                   \
  X(CL_DEVICE_PARTITION_FAILED)                \
  X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)          \
  X(CL_INVALID_VALUE)                          \
  X(CL_INVALID_DEVICE_TYPE)                    \
  X(CL_INVALID_PLATFORM)                       \
  X(CL_INVALID_DEVICE)                         \
  X(CL_INVALID_CONTEXT)                        \
  X(CL_INVALID_QUEUE_PROPERTIES)               \
  X(CL_INVALID_COMMAND_QUEUE)                  \
  X(CL_INVALID_HOST_PTR)                       \
  X(CL_INVALID_MEM_OBJECT)                     \
  X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)        \
  X(CL_INVALID_IMAGE_SIZE)                     \
  X(CL_INVALID_SAMPLER)                        \
  X(CL_INVALID_BINARY)                         \
  X(CL_INVALID_BUILD_OPTIONS)                  \
  X(CL_INVALID_PROGRAM)                        \
  X(CL_INVALID_PROGRAM_EXECUTABLE)             \
  X(CL_INVALID_KERNEL_NAME)                    \
  X(CL_INVALID_KERNEL_DEFINITION)              \
  X(CL_INVALID_KERNEL)                         \
  X(CL_INVALID_ARG_INDEX)                      \
  X(CL_INVALID_ARG_VALUE)                      \
  X(CL_INVALID_ARG_SIZE)                       \
  X(CL_INVALID_KERNEL_ARGS)                    \
  X(CL_INVALID_WORK_DIMENSION)                 \
  X(CL_INVALID_WORK_GROUP_SIZE)                \
  X(CL_INVALID_WORK_ITEM_SIZE)                 \
  X(CL_INVALID_GLOBAL_OFFSET)                  \
  X(CL_INVALID_EVENT_WAIT_LIST)                \
  X(CL_INVALID_EVENT)                          \
  X(CL_INVALID_OPERATION)                      \
  X(CL_INVALID_GL_OBJECT)                      \
  X(CL_INVALID_BUFFER_SIZE)                    \
  X(CL_INVALID_MIP_LEVEL)                      \
  X(CL_INVALID_GLOBAL_WORK_SIZE)               \
  X(CL_INVALID_PROPERTY)                       \
  X(CL_INVALID_IMAGE_DESCRIPTOR)               \
  X(CL_INVALID_COMPILER_OPTIONS)               \
  X(CL_INVALID_LINKER_OPTIONS)                 \
  X(CL_INVALID_DEVICE_PARTITION_COUNT)         \
  X(CL_INVALID_PIPE_SIZE)                      \
  X(CL_INVALID_DEVICE_QUEUE)                   \
  X(CL_INVALID_SPEC_ID)                        \
  X(CL_MAX_SIZE_RESTRICTION_EXCEEDED)          \
  X(CL_PLATFORM_NOT_FOUND_KHR)

}  // namespace

const char* error_name(cl_int code) noexcept {
  switch (code) {
#define HALO_CL_ERROR_CASE_(name) \
  case name:                      \
    return #name;
    HALO_CL_ERROR_LIST(HALO_CL_ERROR_CASE_)
#undef HALO_CL_ERROR_CASE_
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

halo_status_code_t status_code_for(cl_int code) noexcept {
  switch (code) {
    case CL_SUCCESS:
      return HALO_STATUS_OK;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
      return HALO_STATUS_RESOURCE_EXHAUSTED;
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_LINKER_NOT_AVAILABLE:
      return HALO_STATUS_UNAVAILABLE;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
    case CL_LINK_PROGRAM_FAILURE:
    case CL_INVALID_BINARY:
    case CL_INVALID_PROGRAM:
    case CL_INVALID_PROGRAM_EXECUTABLE:
    case CL_INVALID_KERNEL_DEFINITION:
      return HALO_STATUS_INVALID_ARGUMENT;
    default:
      return HALO_STATUS_INTERNAL;
  }
}

halo_status_t cl_failure(sdk::Host host, const char* call,
                         cl_int code) noexcept {
  return host.make_status(status_code_for(code), "%s failed: %s (%d)", call,
                          error_name(code), static_cast<int>(code));
}

}  // namespace halo::cl
