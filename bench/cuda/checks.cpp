// Messages for the calls that failed (see checks.hpp).
#include "checks.hpp"

#include <cstdio>
#include <cstdlib>

namespace halo::bench {
namespace {

// The names of the errors cuInit gives on a machine that cannot run CUDA,
// for when the library answering is the toolkit's stub, whose
// cuGetErrorName knows no names.
const char* setup_error_name(CUresult result) {
  switch (result) {
#define HALO_BENCH_CU_ERROR_(name) \
  case name:                       \
    return #name;
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_STUB_LIBRARY)
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_NO_DEVICE)
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_DEVICE_UNAVAILABLE)
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    HALO_BENCH_CU_ERROR_(CUDA_ERROR_OPERATING_SYSTEM)
#undef HALO_BENCH_CU_ERROR_
    default:
      return "unknown CUDA error";
  }
}

}  // namespace

std::string cu_error_text(CUresult result) {
  // Both lookups leave the pointer alone when the driver does not know the
  // code (or is the toolkit's stub), hence the defaults.
  const char* name = nullptr;
  const char* description = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) {
    name = setup_error_name(result);
  }
  if (cuGetErrorString(result, &description) != CUDA_SUCCESS ||
      description == nullptr) {
    description = "no description from the driver";
  }
  return std::string(name) + " (" + std::to_string(static_cast<int>(result)) +
         "): " + description;
}

std::string describe(const char* call, halo_status_t status) {
  std::string text = std::string(call) + ": " +
                     halo_status_code_name(halo_status_code(status)) + ": " +
                     halo_status_message(status);
  halo_status_free(status);
  return text;
}

void die_halo(const char* call, halo_status_t status) {
  std::fprintf(stderr, "halo-bench-cuda: %s: %s: %s\n", call,
               halo_status_code_name(halo_status_code(status)),
               halo_status_message(status));
  std::fflush(stderr);
  std::abort();
}

void die_cu(const char* call, CUresult result) {
  std::fprintf(stderr, "halo-bench-cuda: %s: %s\n", call,
               cu_error_text(result).c_str());
  std::fflush(stderr);
  std::abort();
}

void die(const char* what) {
  std::fprintf(stderr, "halo-bench-cuda: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace halo::bench
