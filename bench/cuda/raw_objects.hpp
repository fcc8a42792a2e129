// Owners of the raw CUDA objects the benchmarks make, and the calls every
// raw side repeats. Each is made and destroyed with the raw side's context
// current on the calling thread (RawCuda::make_current).
#ifndef HALO_BENCH_CUDA_RAW_OBJECTS_HPP_
#define HALO_BENCH_CUDA_RAW_OBJECTS_HPP_

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "checks.hpp"

namespace halo::bench {

// Calls Destroy on destruction (never on NULL).
template <class Handle, CUresult (*Destroy)(Handle)>
struct CuDestroyer {
  void operator()(Handle handle) const { Destroy(handle); }
};

template <class Handle, CUresult (*Destroy)(Handle)>
using CuPtr = std::unique_ptr<std::remove_pointer_t<Handle>,
                              CuDestroyer<Handle, Destroy>>;

using CuEvent = CuPtr<CUevent, &cuEventDestroy>;
using CuModule = CuPtr<CUmodule, &cuModuleUnload>;

// The events of a completion wait. The plugin's completion events are
// CU_EVENT_BLOCKING_SYNC: cuEventSynchronize sleeps until the device is
// done, whatever the context's scheduling. The raw side's fair baseline
// waits the same way; the reference variants use the context's default
// scheduling instead (CU_CTX_SCHED_AUTO unless set: a spin while the
// process has no more active contexts than cores), which buys latency with
// a busy core.
inline constexpr unsigned int kBlockingSyncEvent =
    CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING;
inline constexpr unsigned int kDefaultSyncEvent = CU_EVENT_DISABLE_TIMING;

// Creates an event with |flags| (kBlockingSyncEvent or kDefaultSyncEvent).
CuEvent make_event(unsigned int flags);

// Records |event| on |stream| after the work issued there so far and
// blocks until the device has passed it.
inline void record_and_sync(CUevent event, CUstream stream) {
  check_cu(cuEventRecord(event, stream), "cuEventRecord");
  check_cu(cuEventSynchronize(event), "cuEventSynchronize");
}

// Device memory from cuMemAlloc, as the plugin's DEVICE_LOCAL buffers are.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(size_t size);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;

  CUdeviceptr get() const { return address_; }

 private:
  CUdeviceptr address_ = 0;
};

// One 64-bit word of pinned host memory mapped into the device's address
// space (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP): the host writes
// it, a stream waits on it (cuStreamWaitValue64).
class HostWord {
 public:
  HostWord() = default;
  // Allocates the word and sets it to 0.
  static HostWord make();
  ~HostWord();
  HostWord(HostWord&& other) noexcept;
  HostWord& operator=(HostWord&& other) noexcept;

  uint64_t* host() const { return host_; }
  CUdeviceptr device() const { return device_; }

 private:
  uint64_t* host_ = nullptr;
  CUdeviceptr device_ = 0;
};

// A PTX module loaded into the current context, and one of its functions.
struct LoadedKernel {
  CuModule module;
  CUfunction function = nullptr;
};

// Loads |ptx| the way the plugin does (cuModuleLoadDataEx with the JIT's
// error log) and looks up function |name| in |*out|. Returns false and
// fills |error| (with the JIT log) when the driver refuses either.
bool load_kernel(const std::string& ptx, const char* name, LoadedKernel* out,
                 std::string* error);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_RAW_OBJECTS_HPP_
