/* constants: four words per element from four constants of different types,
 * so that a swapped, dropped or misaligned constant shows (see
 * ../README.md):
 *   out[4i+0] = a + i          out[4i+1] = (uint)(b * (int)i)
 *   out[4i+2] = (uint)(c * i)  out[4i+3] = d ^ i                  for i < n */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void constants(const halo_cpu_workgroup_t* workgroup, uint32_t* out,
                      uint32_t a, int32_t b, float c, uint32_t d,
                      uint32_t n) {
  for (uint32_t local = 0; local < 64; ++local) {
    const uint32_t i = workgroup->id[0] * 64u + local;
    if (i >= n) continue;
    out[4 * i + 0] = a + i;
    out[4 * i + 1] = (uint32_t)(b * (int32_t)i);
    out[4 * i + 2] = (uint32_t)(c * (float)i);
    out[4 * i + 3] = d ^ i;
  }
}

static const uint8_t kConstantsParams[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_UINT32,  HALO_CPU_PARAM_INT32,
    HALO_CPU_PARAM_FLOAT32, HALO_CPU_PARAM_UINT32, HALO_CPU_PARAM_UINT32};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(constants, kConstantsParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
