// What the plugin learns about one OpenCL device when the driver enumerates:
// its halo info and capabilities, and the native facts the device needs.
#ifndef HALO_OPENCL_DEVICE_DESCRIPTION_HPP_
#define HALO_OPENCL_DEVICE_DESCRIPTION_HPP_

#include <chrono>

#include "cl_library.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"

namespace halo::cl {

// Executable format names (DESIGN.md §3, executable.h).
inline constexpr char kFormatOpenClC[] = "opencl-c";
inline constexpr char kFormatSpirvKernel[] = "spirv-kernel";

struct DeviceDescription {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  halo_device_info_t info = {};
  halo_device_capabilities_t capabilities = {};
  // The device's OpenCL version (CL_DEVICE_VERSION), e.g. 3.0.
  unsigned version_major = 1;
  unsigned version_minor = 2;
  // The largest value of the device's size_t (from CL_DEVICE_ADDRESS_BITS),
  // or of the host's when that is smaller: the bound of a dispatch's global
  // size (see dispatch_grid.hpp).
  uint64_t size_max = 0;
  // CL_DEVICE_QUEUE_PROPERTIES allows out-of-order execution (and
  // HALO_OPENCL_IN_ORDER is not 1): the execution queue is made out-of-order,
  // so that work semaphores leave unordered may overlap. Submissions never
  // rely on it: an implementation may run an out-of-order queue in order
  // (see submission.hpp).
  bool out_of_order = false;
  // The device takes OpenCL C source (a compiler is available).
  bool compiler = false;
  // CL_DEVICE_IL_VERSION names SPIR-V: clCreateProgramWithIL works.
  bool spirv_il = false;
  // CL_DEVICE_HOST_UNIFIED_MEMORY: mapped memory is the device's memory,
  // and host allocations are imported (see describe_external).
  bool unified_memory = false;
  // cl_khr_semaphore is offered (not used yet; reported by halo-info).
  bool khr_semaphore = false;
  // cl_khr_external_memory_opaque_fd, with OPAQUE_FD among the device's
  // import types: another API's device memory is imported as a buffer,
  // which submissions acquire and release around their commands (both
  // entry points found; otherwise NULL and no import). See
  // describe_external.
  clEnqueueAcquireExternalMemObjectsKHR_fn acquire_external = nullptr;
  clEnqueueReleaseExternalMemObjectsKHR_fn release_external = nullptr;
  // How long the queue's worker spins polling an issued submission's
  // completion event before it polls it at growing intervals among its
  // other work (see queue.hpp): 50 µs on GPUs, 0 (a CL_COMPLETE callback at
  // once, no polling) elsewhere, or HALO_OPENCL_COMPLETION_POLL_US.
  std::chrono::microseconds completion_poll{0};

  // True when the device's OpenCL version is at least |major|.|minor|.
  bool at_least(unsigned major, unsigned minor) const noexcept {
    return version_major > major ||
           (version_major == major && version_minor >= minor);
  }
};

// Describes |device| of |platform| as halo device |id| in |*out|. Returns a
// status naming the failed clGetDeviceInfo query.
halo_status_t describe_device(sdk::Host host, const Api& api,
                              cl_platform_id platform, cl_device_id device,
                              halo_device_id_t id,
                              DeviceDescription* out) noexcept;

}  // namespace halo::cl

#endif  // HALO_OPENCL_DEVICE_DESCRIPTION_HPP_
