// OpenCL error codes as halo statuses: every native failure becomes a status
// naming the call and the cl_int code's name (DESIGN.md §9).
#ifndef HALO_OPENCL_CL_STATUS_HPP_
#define HALO_OPENCL_CL_STATUS_HPP_

#include "cl_library.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/status.hpp"

namespace halo::cl {

// Returns the name of |code| ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR"
// for a code outside the OpenCL 3.0 headers. The string is static.
const char* error_name(cl_int code) noexcept;

// Returns the halo code for a failed OpenCL call: RESOURCE_EXHAUSTED for
// memory and resource shortages, UNAVAILABLE for a lost device,
// INVALID_ARGUMENT for programs that do not build, INTERNAL otherwise (the
// plugin checks arguments before it calls OpenCL, so any other failure is a
// fault of the plugin or the implementation).
halo_status_code_t status_code_for(cl_int code) noexcept;

// Returns a new status "|call| failed: NAME (code)" with status_code_for's
// code for a failed |code| (not CL_SUCCESS).
halo_status_t cl_failure(sdk::Host host, const char* call,
                         cl_int code) noexcept;

// Returns OK when |code| is CL_SUCCESS, else cl_failure's status.
inline halo_status_t cl_status(sdk::Host host, const char* call,
                               cl_int code) noexcept {
  if (code == CL_SUCCESS) [[likely]] return HALO_OK;
  return cl_failure(host, call, code);
}

}  // namespace halo::cl

// Returns a status from the enclosing function when the OpenCL call
// |expression| (returning cl_int) fails; |call| names it in the message.
#define HALO_CL_RETURN_IF_ERROR(host, call, expression) \
  HALO_SDK_RETURN_IF_ERROR(::halo::cl::cl_status((host), (call), (expression)))

#endif  // HALO_OPENCL_CL_STATUS_HPP_
