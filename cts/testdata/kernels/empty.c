/* empty: no bindings, no constants, does nothing; measures the cost of a
 * dispatch alone (see ../README.md). */
#include <stddef.h>
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void empty(const halo_cpu_workgroup_t* workgroup) { (void)workgroup; }

/* Written out by hand: HALO_CPU_ENTRY_POINT needs a parameter array, and C
 * has no empty arrays. */
static const halo_cpu_entry_point_t kEntryPoints[] = {
    {"empty", (halo_cpu_kernel_function_t)(empty), 0, NULL}};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
