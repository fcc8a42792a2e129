/* The cpu-so kernels the work benchmarks dispatch (see
 * plugins/cpu/include/halo/cpu_kernel.h for the calling convention).
 *
 * saxpy_chunked is the same loop as native_saxpy.c's baseline, compiled with
 * the same flags, so the comparison measures what halo adds around it. */
#include <stdint.h>

#include "halo/cpu_kernel.h"

/* Does nothing: the dispatch round trip itself is what is measured. */
static void empty(const halo_cpu_workgroup_t* workgroup) { (void)workgroup; }

/* y = a * x + y over 64 elements per workgroup, as the CTS's portable
 * saxpy (and a GPU workgroup of 64 invocations) does. */
static void saxpy(const halo_cpu_workgroup_t* workgroup, float* y,
                  const float* x, float a, uint32_t n) {
  uint32_t begin = workgroup->id[0] * 64u;
  uint32_t end = begin + 64u < n ? begin + 64u : n;
  for (uint32_t i = begin; i < end; ++i) y[i] = a * x[i] + y[i];
}

/* y = a * x + y over an equal share of n per workgroup: the shape a cpu
 * kernel takes when it is written for a handful of workgroups per thread. */
static void saxpy_chunked(const halo_cpu_workgroup_t* workgroup, float* y,
                          const float* x, float a, uint32_t n) {
  uint64_t count = workgroup->count[0];
  uint32_t begin = (uint32_t)((uint64_t)n * workgroup->id[0] / count);
  uint32_t end = (uint32_t)((uint64_t)n * (workgroup->id[0] + 1) / count);
  for (uint32_t i = begin; i < end; ++i) y[i] = a * x[i] + y[i];
}

static const uint8_t kNoParameters[1] = {0};
static const uint8_t kSaxpyParameters[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_FLOAT32,
    HALO_CPU_PARAM_UINT32};

static const halo_cpu_entry_point_t kEntryPoints[] = {
    {"empty", (halo_cpu_kernel_function_t)empty, 0, kNoParameters},
    HALO_CPU_ENTRY_POINT(saxpy, kSaxpyParameters),
    HALO_CPU_ENTRY_POINT(saxpy_chunked, kSaxpyParameters),
};

HALO_CPU_KERNEL_TABLE(kEntryPoints);
