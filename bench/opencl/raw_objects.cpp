// Creating raw OpenCL buffers and kernels (see raw_objects.hpp).
#include "raw_objects.hpp"

#include <string>
#include <utility>
#include <vector>

namespace halo::bench {
namespace {

// Returns the build log of |program| for |device| ("" when unreadable).
std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                            &size) != CL_SUCCESS) {
    return {};
  }
  std::vector<char> log(size + 1, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size,
                            log.data(), nullptr) != CL_SUCCESS) {
    return {};
  }
  return log.data();
}

}  // namespace

ClMem create_buffer(cl_context context, size_t size) {
  cl_int code = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &code);
  check_cl(code, "clCreateBuffer");
  return ClMem(buffer);
}

bool build_kernel(cl_context context, cl_device_id device,
                  const std::string& source, const char* name,
                  BuiltKernel* out, std::string* error) {
  BuiltKernel built;
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int code = CL_SUCCESS;
  built.program.reset(
      clCreateProgramWithSource(context, 1, &text, &length, &code));
  check_cl(code, "clCreateProgramWithSource");
  // The plugin builds with -cl-kernel-arg-info to read the parameters; that
  // only keeps metadata and changes nothing of the code that runs.
  code = clBuildProgram(built.program.get(), 1, &device, "", nullptr, nullptr);
  if (code != CL_SUCCESS) {
    *error = std::string("clBuildProgram: ") + cl_error_name(code) + " (" +
             std::to_string(code) + "); build log:\n" +
             build_log(built.program.get(), device);
    return false;
  }
  built.kernel.reset(clCreateKernel(built.program.get(), name, &code));
  check_cl(code, "clCreateKernel");
  check_cl(clGetKernelWorkGroupInfo(built.kernel.get(), device,
                                    CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                    sizeof(built.local_size),
                                    built.local_size.data(), nullptr),
           "clGetKernelWorkGroupInfo(CL_KERNEL_COMPILE_WORK_GROUP_SIZE)");
  if (built.local_size[0] == 0) {
    die("the benchmark kernel declares no reqd_work_group_size");
  }
  *out = std::move(built);
  return true;
}

}  // namespace halo::bench
