/* add_one: data[i] += 1 for i < n, in place (see ../README.md). */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void add_one(const halo_cpu_workgroup_t* workgroup, uint32_t* data,
                    uint32_t n) {
  for (uint32_t local = 0; local < 64; ++local) {
    const uint32_t i = workgroup->id[0] * 64u + local;
    if (i < n) data[i] += 1u;
  }
}

static const uint8_t kAddOneParams[] = {HALO_CPU_PARAM_BUFFER,
                                        HALO_CPU_PARAM_UINT32};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(add_one, kAddOneParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
