/* workgroup_ids: each workgroup writes its own id in x, y and z, for a grid
 * in three dimensions (see ../README.md): for workgroup (x, y, z) of a grid
 * of X * Y * Z and local index l < 64 (writing nothing for an id outside
 * the grid, which only a broken dispatch passes),
 *   out[((z * Y + y) * X + x) * 64 + l] = x | y << 8 | z << 16 | l << 24. */
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void workgroup_ids(const halo_cpu_workgroup_t* workgroup, uint32_t* out) {
  const uint32_t x = workgroup->id[0], y = workgroup->id[1], z = workgroup->id[2];
  const uint32_t* count = workgroup->count;
  /* Only a broken dispatch passes an id outside the grid. */
  if (x >= count[0] || y >= count[1] || z >= count[2]) return;
  const uint32_t first = ((z * count[1] + y) * count[0] + x) * 64u;
  for (uint32_t local = 0; local < 64; ++local) {
    out[first + local] = x | y << 8 | z << 16 | local << 24;
  }
}

static const uint8_t kWorkgroupIdsParams[] = {HALO_CPU_PARAM_BUFFER};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(workgroup_ids, kWorkgroupIdsParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
