// Messages for the calls that failed (see checks.hpp).
#include "checks.hpp"

#include <cstdio>
#include <cstdlib>

namespace halo::bench {

const char* cl_error_name(cl_int code) {
  switch (code) {
#define HALO_BENCH_CL_ERROR_(name) \
  case name:                       \
    return #name;
    HALO_BENCH_CL_ERROR_(CL_DEVICE_NOT_FOUND)
    HALO_BENCH_CL_ERROR_(CL_DEVICE_NOT_AVAILABLE)
    HALO_BENCH_CL_ERROR_(CL_COMPILER_NOT_AVAILABLE)
    HALO_BENCH_CL_ERROR_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    HALO_BENCH_CL_ERROR_(CL_OUT_OF_RESOURCES)
    HALO_BENCH_CL_ERROR_(CL_OUT_OF_HOST_MEMORY)
    HALO_BENCH_CL_ERROR_(CL_BUILD_PROGRAM_FAILURE)
    HALO_BENCH_CL_ERROR_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    HALO_BENCH_CL_ERROR_(CL_INVALID_VALUE)
    HALO_BENCH_CL_ERROR_(CL_INVALID_PLATFORM)
    HALO_BENCH_CL_ERROR_(CL_INVALID_DEVICE)
    HALO_BENCH_CL_ERROR_(CL_INVALID_CONTEXT)
    HALO_BENCH_CL_ERROR_(CL_INVALID_QUEUE_PROPERTIES)
    HALO_BENCH_CL_ERROR_(CL_INVALID_COMMAND_QUEUE)
    HALO_BENCH_CL_ERROR_(CL_INVALID_MEM_OBJECT)
    HALO_BENCH_CL_ERROR_(CL_INVALID_PROGRAM_EXECUTABLE)
    HALO_BENCH_CL_ERROR_(CL_INVALID_KERNEL_NAME)
    HALO_BENCH_CL_ERROR_(CL_INVALID_KERNEL)
    HALO_BENCH_CL_ERROR_(CL_INVALID_WORK_DIMENSION)
    HALO_BENCH_CL_ERROR_(CL_INVALID_WORK_GROUP_SIZE)
    HALO_BENCH_CL_ERROR_(CL_INVALID_EVENT_WAIT_LIST)
    HALO_BENCH_CL_ERROR_(CL_INVALID_EVENT)
    HALO_BENCH_CL_ERROR_(CL_INVALID_OPERATION)
    HALO_BENCH_CL_ERROR_(CL_INVALID_BUFFER_SIZE)
#undef HALO_BENCH_CL_ERROR_
    default:
      return "unknown OpenCL error";
  }
}

void die_halo(const char* call, halo_status_t status) {
  std::fprintf(stderr, "halo-bench-opencl: %s: %s: %s\n", call,
               halo_status_code_name(halo_status_code(status)),
               halo_status_message(status));
  std::fflush(stderr);
  std::abort();
}

void die_cl(const char* call, cl_int code) {
  std::fprintf(stderr, "halo-bench-opencl: %s: %s (%d)\n", call,
               cl_error_name(code), static_cast<int>(code));
  std::fflush(stderr);
  std::abort();
}

void die(const char* what) {
  std::fprintf(stderr, "halo-bench-opencl: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace halo::bench
