/* fill_index: out[i] = base + i for i < n (see ../README.md). */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void fill_index(const halo_cpu_workgroup_t* workgroup, uint32_t* out,
                       uint32_t base, uint32_t n) {
  for (uint32_t local = 0; local < 64; ++local) {
    const uint32_t i = workgroup->id[0] * 64u + local;
    if (i < n) out[i] = base + i;
  }
}

static const uint8_t kFillIndexParams[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_UINT32, HALO_CPU_PARAM_UINT32};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(fill_index, kFillIndexParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
