// Aborting on the unexpected: the halo-bench-cuda benchmarks are not
// tests, so any status or CUresult they did not plan for ends the run with
// a message naming the call.
#ifndef HALO_BENCH_CUDA_CHECKS_HPP_
#define HALO_BENCH_CUDA_CHECKS_HPP_

#include <cuda.h>

#include <string>

#include "halo/halo.h"

namespace halo::bench {

// Prints |call| and |status| (its code name and message), then aborts.
[[noreturn]] void die_halo(const char* call, halo_status_t status);

// Prints |call| and the CUDA error |result| (see cu_error_text), then
// aborts.
[[noreturn]] void die_cu(const char* call, CUresult result);

// Returns "call: CODE: message" for |status| and frees it: for the
// setup errors that end the run without an abort.
std::string describe(const char* call, halo_status_t status);

// Prints |what| and aborts: for broken setups that no call reported.
[[noreturn]] void die(const char* what);

// Aborts through die_halo() unless |status| is OK.
inline void check(halo_status_t status, const char* call) {
  if (status != HALO_OK) [[unlikely]] {
    die_halo(call, status);
  }
}

// Aborts through die_cu() unless |result| is CUDA_SUCCESS.
inline void check_cu(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) [[unlikely]] {
    die_cu(call, result);
  }
}

// Returns "NAME (code): description" for |result|, e.g.
// "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected". The
// driver's own tables give the words; where it cannot (a stub library),
// the code alone is given.
std::string cu_error_text(CUresult result);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_CHECKS_HPP_
