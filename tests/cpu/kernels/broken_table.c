/* Kernel libraries whose tables the cpu plugin must refuse, one per
 * BROKEN_* definition (tests/cpu/CMakeLists.txt builds each variant). */
#include <stdint.h>

#include "halo/cpu_kernel.h"

#define EXPORT __attribute__((visibility("default")))
/* Not every variant uses every definition. */
#define MAYBE_UNUSED __attribute__((unused))

MAYBE_UNUSED static void first(const halo_cpu_workgroup_t* wg, void* data) {
  (void)wg;
  (void)data;
}
MAYBE_UNUSED static void second(const halo_cpu_workgroup_t* wg) { (void)wg; }

MAYBE_UNUSED static const uint8_t kNone[1] = {0};
MAYBE_UNUSED static const uint8_t kOneBuffer[] = {HALO_CPU_PARAM_BUFFER};

#if defined(BROKEN_ABI_VERSION)
static const halo_cpu_entry_point_t kEntries[] = {
    HALO_CPU_ENTRY_POINT(first, kOneBuffer)};
EXPORT const halo_cpu_kernel_table_t halo_cpu_kernel_table = {
    HALO_CPU_KERNEL_ABI_VERSION + 1, 1, kEntries};
#elif defined(BROKEN_BUFFER_AFTER_SCALAR)
static const uint8_t kParameters[] = {HALO_CPU_PARAM_UINT32,
                                      HALO_CPU_PARAM_BUFFER};
static const halo_cpu_entry_point_t kEntries[] = {
    HALO_CPU_ENTRY_POINT(first, kParameters)};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_UNKNOWN_KIND)
static const uint8_t kParameters[] = {HALO_CPU_PARAM_BUFFER, 42};
static const halo_cpu_entry_point_t kEntries[] = {
    HALO_CPU_ENTRY_POINT(first, kParameters)};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_DUPLICATE_NAME)
static const halo_cpu_entry_point_t kEntries[] = {
    {"twin", (halo_cpu_kernel_function_t)first, 1, kOneBuffer},
    {"twin", (halo_cpu_kernel_function_t)second, 0, kNone}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_DUPLICATE_FUNCTION)
static const halo_cpu_entry_point_t kEntries[] = {
    {"one", (halo_cpu_kernel_function_t)second, 0, kNone},
    {"other", (halo_cpu_kernel_function_t)second, 0, kNone}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_NULL_FUNCTION)
static const halo_cpu_entry_point_t kEntries[] = {
    HALO_CPU_ENTRY_POINT(first, kOneBuffer), {"missing", 0, 0, kNone}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_NULL_NAME)
static const halo_cpu_entry_point_t kEntries[] = {
    {0, (halo_cpu_kernel_function_t)first, 1, kOneBuffer}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_LONG_NAME)
#define TEN "0123456789"
static const halo_cpu_entry_point_t kEntries[] = {
    {TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN "01234567",
     (halo_cpu_kernel_function_t)first, 1, kOneBuffer}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_TOO_MANY_PARAMETERS)
static const uint8_t kParameters[HALO_CPU_MAX_PARAMETERS + 1] = {
    HALO_CPU_PARAM_BUFFER};
static const halo_cpu_entry_point_t kEntries[] = {
    {"wide", (halo_cpu_kernel_function_t)first, HALO_CPU_MAX_PARAMETERS + 1,
     kParameters}};
HALO_CPU_KERNEL_TABLE(kEntries);
#elif defined(BROKEN_NO_ENTRY_POINTS)
EXPORT const halo_cpu_kernel_table_t halo_cpu_kernel_table = {
    HALO_CPU_KERNEL_ABI_VERSION, 0, 0};
#elif defined(BROKEN_MISSING_TABLE)
/* A good kernel function, but no table. */
EXPORT void exported_kernel(const halo_cpu_workgroup_t* wg) { second(wg); }
#elif defined(BROKEN_UNRESOLVED_SYMBOL)
/* Links, but dlopen(RTLD_NOW) cannot bind this reference. */
extern void halo_test_no_such_function(void);
static void calls_missing(const halo_cpu_workgroup_t* wg) {
  (void)wg;
  halo_test_no_such_function();
}
static const halo_cpu_entry_point_t kEntries[] = {
    {"calls_missing", (halo_cpu_kernel_function_t)calls_missing, 0, kNone}};
HALO_CPU_KERNEL_TABLE(kEntries);
#else
#error "define one BROKEN_* variant"
#endif
