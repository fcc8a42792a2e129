// The CUDA driver API entry points the plugin (and the benchmarks'
// hand-written CUDA sides) use, loaded at run time.
//
// The plugin never links libcuda: it opens libcuda.so.1 with dlopen and
// reads each function it needs into a table. So the plugin builds wherever
// the toolkit's headers are, always loads, and on a machine without an
// NVIDIA driver reports no devices and says why instead of failing to load.
//
// cuda.h maps many names to versioned symbols (cuMemAlloc is cuMemAlloc_v2);
// the table's members carry those expanded names, and the symbol looked up
// is the expanded name too, so a call through the table is the call the
// header means.
#ifndef HALO_CUDA_CUDA_LIBRARY_HPP_
#define HALO_CUDA_CUDA_LIBRARY_HPP_

#include <cuda.h>

namespace halo::cuda {

#define HALO_CUDA_FUNCTIONS(X)   \
  X(cuInit)                      \
  X(cuDriverGetVersion)          \
  X(cuGetErrorName)              \
  X(cuGetErrorString)            \
  X(cuDeviceGetCount)            \
  X(cuDeviceGet)                 \
  X(cuDeviceGetName)             \
  X(cuDeviceGetUuid)             \
  X(cuDeviceGetAttribute)        \
  X(cuDeviceTotalMem)            \
  X(cuDevicePrimaryCtxRetain)    \
  X(cuDevicePrimaryCtxRelease)   \
  X(cuCtxPushCurrent)            \
  X(cuCtxPopCurrent)             \
  X(cuStreamCreate)              \
  X(cuStreamDestroy)             \
  X(cuStreamSynchronize)         \
  X(cuEventCreate)               \
  X(cuEventDestroy)              \
  X(cuEventRecord)               \
  X(cuEventQuery)                \
  X(cuEventSynchronize)          \
  X(cuMemAlloc)                  \
  X(cuMemFree)                   \
  X(cuMemHostAlloc)              \
  X(cuMemFreeHost)               \
  X(cuMemHostGetDevicePointer)   \
  X(cuMemHostRegister)           \
  X(cuMemHostUnregister)         \
  X(cuImportExternalMemory)      \
  X(cuExternalMemoryGetMappedBuffer) \
  X(cuDestroyExternalMemory)     \
  X(cuImportExternalSemaphore)   \
  X(cuWaitExternalSemaphoresAsync) \
  X(cuSignalExternalSemaphoresAsync) \
  X(cuDestroyExternalSemaphore)  \
  X(cuMemsetD8Async)             \
  X(cuMemsetD16Async)            \
  X(cuMemsetD32Async)            \
  X(cuMemcpyHtoDAsync)           \
  X(cuMemcpyDtoDAsync)           \
  X(cuModuleLoadDataEx)          \
  X(cuModuleUnload)              \
  X(cuModuleGetFunction)         \
  X(cuLaunchKernel)

// The loaded entry points. Immutable once loaded; shared by every object.
struct Api {
#define HALO_CUDA_API_MEMBER_(name) decltype(&::name) name = nullptr;
  HALO_CUDA_FUNCTIONS(HALO_CUDA_API_MEMBER_)
#undef HALO_CUDA_API_MEMBER_
};

// Returns the entry points, loading the library and calling cuInit on the
// first call, or NULL when either fails; then |*out_reason| (static text)
// says why (the library is missing, CUDA_ERROR_NO_DEVICE, ...). The library
// named by the HALO_CUDA_LIBRARY environment variable is opened instead of
// libcuda.so.1 when set (secure_getenv). It stays loaded until the process
// ends: the driver runs threads that would outlive an unload. Thread-safe.
const Api* load_api(const char** out_reason) noexcept;

}  // namespace halo::cuda

#endif  // HALO_CUDA_CUDA_LIBRARY_HPP_
