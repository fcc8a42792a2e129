// The OpenCL entry points the plugin uses, loaded at run time.
//
// The plugin never links libOpenCL: it opens the ICD loader (libOpenCL.so.1)
// with dlopen and reads each function it needs into a table. So the plugin
// always loads, and where no loader or no platform exists it reports no
// devices and says why, instead of failing to load.
#ifndef HALO_OPENCL_CL_LIBRARY_HPP_
#define HALO_OPENCL_CL_LIBRARY_HPP_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
// clCreateCommandQueue serves devices older than OpenCL 2.0.
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

namespace halo::cl {

// Functions every OpenCL 1.2 implementation has; the library is refused
// when one is missing.
#define HALO_CL_REQUIRED_FUNCTIONS(X) \
  X(clGetPlatformIDs)                 \
  X(clGetPlatformInfo)                \
  X(clGetDeviceIDs)                   \
  X(clGetDeviceInfo)                  \
  X(clCreateContext)                  \
  X(clReleaseContext)                 \
  X(clCreateCommandQueue)             \
  X(clReleaseCommandQueue)            \
  X(clFlush)                          \
  X(clFinish)                         \
  X(clCreateBuffer)                   \
  X(clCreateSubBuffer)                \
  X(clReleaseMemObject)               \
  X(clSetMemObjectDestructorCallback) \
  X(clEnqueueMapBuffer)               \
  X(clEnqueueUnmapMemObject)          \
  X(clEnqueueFillBuffer)              \
  X(clEnqueueWriteBuffer)             \
  X(clEnqueueCopyBuffer)              \
  X(clEnqueueNDRangeKernel)           \
  X(clEnqueueMarkerWithWaitList)      \
  X(clCreateProgramWithSource)        \
  X(clBuildProgram)                   \
  X(clGetProgramBuildInfo)            \
  X(clReleaseProgram)                 \
  X(clCreateKernelsInProgram)         \
  X(clCreateKernel)                   \
  X(clGetKernelInfo)                  \
  X(clGetKernelArgInfo)               \
  X(clGetKernelWorkGroupInfo)         \
  X(clSetKernelArg)                   \
  X(clReleaseKernel)                  \
  X(clCreateUserEvent)                \
  X(clSetUserEventStatus)             \
  X(clSetEventCallback)               \
  X(clGetEventInfo)                   \
  X(clRetainEvent)                    \
  X(clReleaseEvent)                   \
  X(clWaitForEvents)

// Functions of later versions; NULL where the loader lacks them, and even
// where present only usable on devices of the version that has them.
#define HALO_CL_OPTIONAL_FUNCTIONS(X)        \
  X(clCreateCommandQueueWithProperties)      \
  X(clCreateProgramWithIL)                   \
  X(clCloneKernel)                           \
  X(clCreateBufferWithProperties)            \
  X(clGetExtensionFunctionAddressForPlatform)

// The loaded entry points. Immutable once loaded; shared by every object.
struct Api {
#define HALO_CL_API_MEMBER_(name) decltype(&::name) name = nullptr;
  HALO_CL_REQUIRED_FUNCTIONS(HALO_CL_API_MEMBER_)
  HALO_CL_OPTIONAL_FUNCTIONS(HALO_CL_API_MEMBER_)
#undef HALO_CL_API_MEMBER_
};

// Returns the entry points, loading the library on the first call, or NULL
// when it cannot be loaded; then |*out_reason| (static text) says why.
// The library named by the HALO_OPENCL_LIBRARY environment variable is
// opened instead of libOpenCL.so.1 when set (secure_getenv). The library
// stays loaded until the process ends: OpenCL implementations run threads
// that would outlive an unload. Thread-safe.
const Api* load_api(const char** out_reason) noexcept;

}  // namespace halo::cl

#endif  // HALO_OPENCL_CL_LIBRARY_HPP_
