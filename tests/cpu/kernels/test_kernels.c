/* cpu-so kernels of the cpu plugin's tests (calling convention:
 * plugins/cpu/include/halo/cpu_kernel.h). Like the CTS kernels, each
 * element kernel covers 64 elements per workgroup in x. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "halo/cpu_kernel.h"

#define WORKGROUP_SIZE 64u

/* The elements [*begin, *end) of workgroup |wg| for |n| elements. */
static void element_range(const halo_cpu_workgroup_t* wg, uint32_t n,
                          uint32_t* begin, uint32_t* end) {
  uint64_t first = (uint64_t)wg->id[0] * WORKGROUP_SIZE;
  uint64_t last = first + WORKGROUP_SIZE;
  *begin = first < n ? (uint32_t)first : n;
  *end = last < n ? (uint32_t)last : n;
}

/* Does nothing. */
static void empty(const halo_cpu_workgroup_t* wg) { (void)wg; }

/* out[i] = base + i. */
static void iota(const halo_cpu_workgroup_t* wg, uint32_t* out, uint32_t base,
                 uint32_t n) {
  uint32_t begin, end;
  element_range(wg, n, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = base + i;
}

/* y = a * x + y. */
static void saxpy(const halo_cpu_workgroup_t* wg, float* y, const float* x,
                  float a, uint32_t n) {
  uint32_t begin, end;
  element_range(wg, n, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) y[i] = a * x[i] + y[i];
}

/* out = a + b + c: several bindings. */
static void add3(const halo_cpu_workgroup_t* wg, uint32_t* out,
                 const uint32_t* a, const uint32_t* b, const uint32_t* c,
                 uint32_t n) {
  uint32_t begin, end;
  element_range(wg, n, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) out[i] = a[i] + b[i] + c[i];
}

/* data[i] += 1: dispatched many times in a row, it shows each dispatch
 * finished before the next began (overlapping ones would lose updates). */
static void increment(const halo_cpu_workgroup_t* wg, uint32_t* data,
                      uint32_t n) {
  uint32_t begin, end;
  element_range(wg, n, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) data[i] += 1;
}

/* Every constant kind: workgroup 0 writes each back as a 64-bit word
 * (floats as their bit patterns). Offsets 0, 8, 16, 24, 32, 40: 48 bytes. */
static void constants(const halo_cpu_workgroup_t* wg, uint64_t* out,
                      int32_t a, int64_t b, float c, double d, uint32_t e,
                      uint64_t f) {
  if (wg->id[0] != 0) return;
  uint32_t c_bits;
  uint64_t d_bits;
  memcpy(&c_bits, &c, sizeof(c_bits));
  memcpy(&d_bits, &d, sizeof(d_bits));
  out[0] = (uint64_t)(int64_t)a;
  out[1] = (uint64_t)b;
  out[2] = c_bits;
  out[3] = d_bits;
  out[4] = e;
  out[5] = f;
}

/* Six words per workgroup at its linear index: its id, then the counts. */
static void workgroup_ids(const halo_cpu_workgroup_t* wg, uint32_t* out) {
  uint64_t linear =
      wg->id[0] + (uint64_t)wg->count[0] *
                      (wg->id[1] + (uint64_t)wg->count[1] * wg->id[2]);
  for (int k = 0; k < 3; ++k) {
    out[linear * 6 + k] = wg->id[k];
    out[linear * 6 + 3 + k] = wg->count[k];
  }
}

/* tids[x] = the calling thread's id. */
static void thread_ids(const halo_cpu_workgroup_t* wg, uint32_t* tids) {
  tids[wg->id[0]] = (uint32_t)syscall(SYS_gettid);
}

/* Every workgroup arrives at counter[0], then waits until count[0] have
 * arrived: only possible when that many run at the same time. result[x] is
 * 1 when all arrived; the wait gives up (result 0) after 60 seconds so that
 * a pool without enough threads fails the test instead of hanging it. */
static void rendezvous(const halo_cpu_workgroup_t* wg, uint32_t* counter,
                       uint32_t* result) {
  __atomic_fetch_add(&counter[0], 1u, __ATOMIC_SEQ_CST);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  uint32_t arrived = 0;
  for (;;) {
    arrived = __atomic_load_n(&counter[0], __ATOMIC_SEQ_CST);
    if (arrived >= wg->count[0]) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 60) break;
    sched_yield();
  }
  result[wg->id[0]] = arrived >= wg->count[0] ? 1u : 0u;
}

static const uint8_t kNoParameters[1] = {0};
static const uint8_t kIotaParameters[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_UINT32, HALO_CPU_PARAM_UINT32};
static const uint8_t kSaxpyParameters[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_FLOAT32,
    HALO_CPU_PARAM_UINT32};
static const uint8_t kAdd3Parameters[] = {
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER,
    HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_UINT32};
static const uint8_t kIncrementParameters[] = {HALO_CPU_PARAM_BUFFER,
                                               HALO_CPU_PARAM_UINT32};
static const uint8_t kConstantsParameters[] = {
    HALO_CPU_PARAM_BUFFER,  HALO_CPU_PARAM_INT32,   HALO_CPU_PARAM_INT64,
    HALO_CPU_PARAM_FLOAT32, HALO_CPU_PARAM_FLOAT64, HALO_CPU_PARAM_UINT32,
    HALO_CPU_PARAM_UINT64};
static const uint8_t kOneBuffer[] = {HALO_CPU_PARAM_BUFFER};
static const uint8_t kTwoBuffers[] = {HALO_CPU_PARAM_BUFFER,
                                      HALO_CPU_PARAM_BUFFER};

static const halo_cpu_entry_point_t kEntryPoints[] = {
    {"empty", (halo_cpu_kernel_function_t)empty, 0, kNoParameters},
    HALO_CPU_ENTRY_POINT(iota, kIotaParameters),
    HALO_CPU_ENTRY_POINT(saxpy, kSaxpyParameters),
    HALO_CPU_ENTRY_POINT(add3, kAdd3Parameters),
    HALO_CPU_ENTRY_POINT(increment, kIncrementParameters),
    HALO_CPU_ENTRY_POINT(constants, kConstantsParameters),
    HALO_CPU_ENTRY_POINT(workgroup_ids, kOneBuffer),
    HALO_CPU_ENTRY_POINT(thread_ids, kOneBuffer),
    HALO_CPU_ENTRY_POINT(rendezvous, kTwoBuffers),
};

HALO_CPU_KERNEL_TABLE(kEntryPoints);
