/* multiply_add: out[i] = a[i] + b[i] * c[i] for i < n, four bindings (see
 * ../README.md). */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void multiply_add(const halo_cpu_workgroup_t* workgroup, float* out,
                         const float* a, const float* b, const float* c,
                         uint32_t n) {
  for (uint32_t local = 0; local < 64; ++local) {
    const uint32_t i = workgroup->id[0] * 64u + local;
    if (i < n) out[i] = a[i] + b[i] * c[i];
  }
}

static const uint8_t kMultiplyAddParams[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER,
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_UINT32};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(multiply_add, kMultiplyAddParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
