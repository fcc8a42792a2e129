// Aborting on the unexpected: the halo-bench-opencl benchmarks are not
// tests, so any status or cl_int they did not plan for ends the run with a
// message naming the call.
#ifndef HALO_BENCH_OPENCL_CHECKS_HPP_
#define HALO_BENCH_OPENCL_CHECKS_HPP_

#include <CL/cl.h>

#include "halo/halo.h"

namespace halo::bench {

// Prints |call| and |status| (its code name and message), then aborts.
[[noreturn]] void die_halo(const char* call, halo_status_t status);

// Prints |call| and the OpenCL error |code| (its name where known), then
// aborts.
[[noreturn]] void die_cl(const char* call, cl_int code);

// Prints |what| and aborts: for broken setups that no call reported.
[[noreturn]] void die(const char* what);

// Aborts through die_halo() unless |status| is OK.
inline void check(halo_status_t status, const char* call) {
  if (status != HALO_OK) [[unlikely]] {
    die_halo(call, status);
  }
}

// Aborts through die_cl() unless |code| is CL_SUCCESS.
inline void check_cl(cl_int code, const char* call) {
  if (code != CL_SUCCESS) [[unlikely]] {
    die_cl(call, code);
  }
}

// Returns the name of OpenCL error |code| ("CL_OUT_OF_RESOURCES"), or
// "unknown OpenCL error" for a code outside the common table.
const char* cl_error_name(cl_int code);

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_CHECKS_HPP_
