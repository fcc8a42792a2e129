/* Kernels for the cpu plugin: the "cpu-so" executable format.
 *
 * A cpu executable is a native shared object built for the host and handed
 * to halo_executable_create as bytes. The plugin loads it from memory (an
 * anonymous, sealed memfd; never a file in a shared folder) and reads one
 * exported symbol, `halo_cpu_kernel_table` (HALO_CPU_KERNEL_TABLE_SYMBOL),
 * which describes its entry points.
 *
 * Calling convention. An entry point is an ordinary C function returning
 * void. The plugin calls it once per workgroup, through libffi, as
 *
 *   void fn(const halo_cpu_workgroup_t* workgroup, P1 p1, P2 p2, ...);
 *
 * where P1… are the parameters the table lists, in order: first one pointer
 * per buffer binding of the dispatch (the binding's buffer memory plus its
 * offset), then the scalar constants, read from the dispatch's constant
 * bytes in order, each at the next offset aligned to its own size (4 or 8
 * bytes: the layout of a C struct with the same members, and of a GLSL
 * std430 push-constant block). The entry point's constant_size is the
 * offset just past its last constant (0 without constants); a dispatch
 * must pass exactly that many constant bytes.
 *
 * A workgroup is one call: the function decides how much work a call does
 * (the CTS's kernels cover 64 elements each), and the table does not say, so
 * halo_entry_point_info_t::workgroup_size is {0, 0, 0} for every cpu entry
 * point; a caller sizes the dispatch's grid from the kernel's own contract.
 *
 * A workgroup's id runs over [0, count) in each dimension; workgroups of one
 * dispatch run concurrently on the device's worker threads (the queue's
 * thread plus a pool: HALO_CPU_WORKERS threads in all, the hardware's
 * concurrency by default) in no defined order, so a kernel must not depend
 * on one workgroup finishing before another starts, nor wait for another.
 * A dispatch of one workgroup runs on the queue's thread alone. Dispatches
 * of a command buffer run in recorded order, each complete before the next
 * starts.
 *
 * Example:
 *
 *   static void saxpy(const halo_cpu_workgroup_t* wg, float* y,
 *                     const float* x, float a, uint32_t n) { ... }
 *   static const uint8_t kSaxpyParams[] = {
 *       HALO_CPU_PARAM_BUFFER, HALO_CPU_PARAM_BUFFER,
 *       HALO_CPU_PARAM_FLOAT32, HALO_CPU_PARAM_UINT32};
 *   static const halo_cpu_entry_point_t kEntryPoints[] = {
 *       HALO_CPU_ENTRY_POINT(saxpy, kSaxpyParams)};
 *   HALO_CPU_KERNEL_TABLE(kEntryPoints);
 *
 * The plugin refuses, at halo_executable_create and with the reason, a
 * library dlopen cannot load (its message included: the library must be
 * built for the host and all its symbols must resolve), a library without
 * the table symbol, a table with another abi_version, no entry points, a
 * NULL, empty, over-long or duplicate name, a NULL or duplicate function, an
 * unknown parameter kind, a buffer parameter after a scalar one, or more
 * than HALO_CPU_MAX_PARAMETERS parameters (`parameters` may be NULL when
 * there are none). A C function cannot be inspected for its real parameter
 * list, so the table is the contract: keep it next to the function it
 * describes. */
#ifndef HALO_CPU_KERNEL_H_
#define HALO_CPU_KERNEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parameter kinds, stored as uint8_t in a parameter list. */
typedef enum halo_cpu_param_e {
  HALO_CPU_PARAM_BUFFER = 1, /* void* to the binding's bytes */
  HALO_CPU_PARAM_INT32 = 2,
  HALO_CPU_PARAM_UINT32 = 3,
  HALO_CPU_PARAM_INT64 = 4,
  HALO_CPU_PARAM_UINT64 = 5,
  HALO_CPU_PARAM_FLOAT32 = 6,
  HALO_CPU_PARAM_FLOAT64 = 7
} halo_cpu_param_t;

/* Most parameters (bindings plus constants) an entry point may take. */
#define HALO_CPU_MAX_PARAMETERS 64

/* Which workgroup a call computes, and how many the dispatch has. */
typedef struct halo_cpu_workgroup_t {
  uint32_t id[3];
  uint32_t count[3];
} halo_cpu_workgroup_t;

/* Any entry point, cast to a common type for the table. */
typedef void (*halo_cpu_kernel_function_t)(void);

typedef struct halo_cpu_entry_point_t {
  /* Unique within the table; at most 127 bytes. */
  const char* name;
  halo_cpu_kernel_function_t function;
  uint32_t parameter_count;
  /* parameter_count halo_cpu_param_t values. */
  const uint8_t* parameters;
} halo_cpu_entry_point_t;

#define HALO_CPU_KERNEL_ABI_VERSION 1u
#define HALO_CPU_KERNEL_TABLE_SYMBOL "halo_cpu_kernel_table"

typedef struct halo_cpu_kernel_table_t {
  /* HALO_CPU_KERNEL_ABI_VERSION as compiled into the kernel. */
  uint32_t abi_version;
  uint32_t entry_point_count;
  const halo_cpu_entry_point_t* entry_points;
} halo_cpu_kernel_table_t;

/* One table entry for |function| with the uint8_t array |parameters|. */
#define HALO_CPU_ENTRY_POINT(function, parameters)                     \
  {#function, (halo_cpu_kernel_function_t)(function),                 \
   (uint32_t)(sizeof(parameters) / sizeof((parameters)[0])), (parameters)}

/* Defines the exported table over the array |entry_points|. */
#define HALO_CPU_KERNEL_TABLE(entry_points)                            \
  __attribute__((visibility("default"))) const halo_cpu_kernel_table_t \
      halo_cpu_kernel_table = {                                        \
          HALO_CPU_KERNEL_ABI_VERSION,                                 \
          (uint32_t)(sizeof(entry_points) / sizeof((entry_points)[0])), \
          (entry_points)}

#ifdef __cplusplus
}
#endif

#endif /* HALO_CPU_KERNEL_H_ */
