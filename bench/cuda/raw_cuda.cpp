// Finding the halo device's CUdevice and opening the raw side on its
// primary context (see raw_cuda.hpp).
#include "raw_cuda.hpp"

#include <cstring>

#include "checks.hpp"

namespace halo::bench {
namespace {

// "|call| failed: NAME (code): description", for the open errors.
std::string failure(const char* call, CUresult result) {
  return std::string(call) + " failed: " + cu_error_text(result);
}

const char* scheduling_name(unsigned int flags) {
  switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_SPIN:
      return "spin";
    case CU_CTX_SCHED_YIELD:
      return "yield";
    case CU_CTX_SCHED_BLOCKING_SYNC:
      return "blocking sync";
    default:
      return "auto";
  }
}

}  // namespace

RawCuda::~RawCuda() {
  if (context_ == nullptr) return;
  cuCtxSetCurrent(context_);
  if (stream_ != nullptr) {
    cuStreamSynchronize(stream_);
    cuStreamDestroy(stream_);
  }
  cuCtxSetCurrent(nullptr);
  cuDevicePrimaryCtxRelease(device_);
}

bool RawCuda::init(std::string* error) {
  const CUresult result = cuInit(0);
  if (result != CUDA_SUCCESS) {
    *error = failure("cuInit", result) +
             " (halo-bench-cuda needs an NVIDIA GPU and its driver)";
    return false;
  }
  int count = 0;
  const CUresult counted = cuDeviceGetCount(&count);
  if (counted != CUDA_SUCCESS) {
    *error = failure("cuDeviceGetCount", counted);
    return false;
  }
  if (count <= 0) {
    *error = "the CUDA driver lists no device";
    return false;
  }
  return true;
}

bool RawCuda::open(const halo_device_info_t& halo_info, std::string* error) {
  if (!find_device(halo_info, error)) return false;
  CUresult result = cuDevicePrimaryCtxRetain(&context_, device_);
  if (result != CUDA_SUCCESS) {
    context_ = nullptr;
    *error = failure("cuDevicePrimaryCtxRetain", result);
    return false;
  }
  make_current();
  // Non-blocking, as the plugin's: the legacy default stream orders
  // neither side's work.
  result = cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS) {
    stream_ = nullptr;
    *error = failure("cuStreamCreate", result);
    return false;
  }
  describe_context();
  return true;
}

void RawCuda::make_current() const {
  check_cu(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

bool RawCuda::find_device(const halo_device_info_t& halo_info,
                          std::string* error) {
  int count = 0;
  check_cu(cuDeviceGetCount(&count), "cuDeviceGetCount");
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    CUuuid uuid = {};
    if (cuDeviceGet(&device, ordinal) != CUDA_SUCCESS ||
        cuDeviceGetUuid(&uuid, device) != CUDA_SUCCESS) {
      continue;
    }
    static_assert(sizeof(uuid.bytes) == sizeof(halo_info.uuid));
    if (std::memcmp(uuid.bytes, halo_info.uuid, sizeof(uuid.bytes)) != 0) {
      continue;
    }
    device_ = device;
    char name[256] = {};
    check_cu(cuDeviceGetName(name, sizeof(name) - 1, device),
             "cuDeviceGetName");
    int version = 0;
    check_cu(cuDriverGetVersion(&version), "cuDriverGetVersion");
    description_ = std::string(name) + ", CUDA " +
                   std::to_string(version / 1000) + "." +
                   std::to_string(version % 1000 / 10);
    return true;
  }
  *error = std::string("no CUDA device has the UUID of the halo device '") +
           halo_info.name + "' (" + std::to_string(count) +
           " CUDA devices listed)";
  return false;
}

void RawCuda::describe_context() {
  unsigned int flags = 0;
  int active = 0;
  check_cu(cuDevicePrimaryCtxGetState(device_, &flags, &active),
           "cuDevicePrimaryCtxGetState");
  scheduling_ = scheduling_name(flags);
}

}  // namespace halo::bench
