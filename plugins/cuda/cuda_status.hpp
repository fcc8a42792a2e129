// CUresult codes as halo statuses: every native failure becomes a status
// naming the call and the code's name (DESIGN.md §9).
#ifndef HALO_CUDA_CUDA_STATUS_HPP_
#define HALO_CUDA_CUDA_STATUS_HPP_

#include "cuda_library.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/status.hpp"

namespace halo::cuda {

// Returns the halo code for a failed CUDA call: RESOURCE_EXHAUSTED for
// memory and resource shortages, INVALID_ARGUMENT for PTX that does not
// compile, UNAVAILABLE for a lost or unusable device, INTERNAL otherwise
// (the plugin checks arguments before it calls CUDA, so any other failure
// is a fault of the plugin or the driver).
halo_status_code_t status_code_for(CUresult result) noexcept;

// Returns a new status "|call| failed: NAME (code): description" with
// status_code_for's code for a failed |result| (not CUDA_SUCCESS).
halo_status_t cuda_failure(sdk::Host host, const Api& api, const char* call,
                           CUresult result) noexcept;

// Returns OK when |result| is CUDA_SUCCESS, else cuda_failure's status.
inline halo_status_t cuda_status(sdk::Host host, const Api& api,
                                 const char* call, CUresult result) noexcept {
  if (result == CUDA_SUCCESS) [[likely]] return HALO_OK;
  return cuda_failure(host, api, call, result);
}

}  // namespace halo::cuda

// Returns a status from the enclosing function when the CUDA call
// |expression| fails; |call| names it in the message.
#define HALO_CUDA_RETURN_IF_ERROR(host, api, call, expression) \
  HALO_SDK_RETURN_IF_ERROR(                                    \
      ::halo::cuda::cuda_status((host), (api), (call), (expression)))

#endif  // HALO_CUDA_CUDA_STATUS_HPP_
