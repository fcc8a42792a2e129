// CUresult codes as halo statuses (see cuda_status.hpp).
#include "cuda_status.hpp"

namespace halo::cuda {

halo_status_code_t status_code_for(CUresult result) noexcept {
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_TOO_MANY_PEERS:
      return HALO_STATUS_RESOURCE_EXHAUSTED;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_NOT_FOUND:
      return HALO_STATUS_INVALID_ARGUMENT;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
      return HALO_STATUS_UNAVAILABLE;
    default:
      return HALO_STATUS_INTERNAL;
  }
}

halo_status_t cuda_failure(sdk::Host host, const Api& api, const char* call,
                           CUresult result) noexcept {
  const char* name = nullptr;
  const char* description = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS) {
    name = "an unknown CUresult";
  }
  if (api.cuGetErrorString(result, &description) != CUDA_SUCCESS) {
    description = "no description";
  }
  return host.make_status(status_code_for(result), "%s failed: %s (%d): %s",
                          call, name, static_cast<int>(result), description);
}

}  // namespace halo::cuda
