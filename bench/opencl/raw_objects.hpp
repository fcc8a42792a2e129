// Owners of the raw OpenCL objects the benchmarks make, and the calls every
// raw side repeats.
#ifndef HALO_BENCH_OPENCL_RAW_OBJECTS_HPP_
#define HALO_BENCH_OPENCL_RAW_OBJECTS_HPP_

#include <CL/cl.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>

#include "checks.hpp"

namespace halo::bench {

// Calls Release on destruction (never on NULL).
template <class Handle, cl_int (*Release)(Handle)>
struct ClReleaser {
  void operator()(Handle handle) const { Release(handle); }
};

template <class Handle, cl_int (*Release)(Handle)>
using ClPtr = std::unique_ptr<std::remove_pointer_t<Handle>,
                              ClReleaser<Handle, Release>>;

using ClMem = ClPtr<cl_mem, &clReleaseMemObject>;
using ClProgram = ClPtr<cl_program, &clReleaseProgram>;
using ClKernel = ClPtr<cl_kernel, &clReleaseKernel>;

// Creates a CL_MEM_READ_WRITE buffer of |size| bytes on |context|: device
// memory, as the plugin's DEVICE_LOCAL buffers are.
ClMem create_buffer(cl_context context, size_t size);

// A kernel built from OpenCL C source, and the work-group size it declares
// (reqd_work_group_size, which the plugin also dispatches with).
struct BuiltKernel {
  ClProgram program;
  ClKernel kernel;
  std::array<size_t, 3> local_size = {};
};

// Builds |source| for |device| and creates kernel |name| in |*out|.
// Returns false and fills |error| (with the build log) when the build
// fails, as the halo side reports a refused executable; aborts when a
// later call fails or the kernel declares no work-group size.
bool build_kernel(cl_context context, cl_device_id device,
                  const std::string& source, const char* name,
                  BuiltKernel* out, std::string* error);

// Blocks until |event| completes (clWaitForEvents), then releases it.
inline void wait_and_release(cl_event event) {
  check_cl(clWaitForEvents(1, &event), "clWaitForEvents");
  check_cl(clReleaseEvent(event), "clReleaseEvent");
}

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_RAW_OBJECTS_HPP_
