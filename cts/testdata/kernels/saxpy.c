/* saxpy: y[i] = a * x[i] + y[i] for i < n (see ../README.md). */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void saxpy(const halo_cpu_workgroup_t* workgroup, float* y,
                  const float* x, float a, uint32_t n) {
  for (uint32_t local = 0; local < 64; ++local) {
    const uint32_t i = workgroup->id[0] * 64u + local;
    if (i < n) y[i] = a * x[i] + y[i];
  }
}

static const uint8_t kSaxpyParams[] = {HALO_CPU_PARAM_BUFFER,
                                       HALO_CPU_PARAM_BUFFER,
                                       HALO_CPU_PARAM_FLOAT32,
                                       HALO_CPU_PARAM_UINT32};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(saxpy, kSaxpyParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
