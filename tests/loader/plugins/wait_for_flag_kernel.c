/* A cpu-plugin kernel for the validation tests: its dispatch spins until the
 * host sets the first word of its binding, so that a submission stays
 * running, neither blocked on a semaphore nor complete, for exactly as long
 * as a test needs. */
#include <sched.h>
#include <stdint.h>

#include "halo/cpu_kernel.h"

static void wait_for_flag(const halo_cpu_workgroup_t* workgroup,
                          uint32_t* flag) {
  (void)workgroup;
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) sched_yield();
}

static const uint8_t kWaitForFlagParams[] = {HALO_CPU_PARAM_BUFFER};
static const halo_cpu_entry_point_t kEntryPoints[] = {
    HALO_CPU_ENTRY_POINT(wait_for_flag, kWaitForFlagParams)};
HALO_CPU_KERNEL_TABLE(kEntryPoints);
