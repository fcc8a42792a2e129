/* libhalo_bench_vk_call_timer.so: where a benchmark's Vulkan time goes, on a
 * machine without a profiler (bench/README.md, "Vulkan calls timed").
 *
 * Device functions reach the driver without the loader, so this library
 * stands where they are looked up: its vkGetDeviceProcAddr hands out, for
 * the calls a submission makes, wrappers that forward to the driver's own
 * and add up per call its count and nanoseconds, separately for the
 * process's main thread (the benchmark's timed thread) and every other
 * thread (the plugin's notification thread). Its vkGetInstanceProcAddr
 * forwards to the loader's, except that it hands out that
 * vkGetDeviceProcAddr. At exit it prints the totals to stderr. One process
 * may have several devices: their functions are the driver's same entry
 * points on the drivers this is meant for, so the first pointer found is
 * kept.
 *
 * The vulkan plugin opens it in place of the loader through
 * HALO_VULKAN_LIBRARY; a program linked with the loader, through
 * LD_PRELOAD.
 */
#define _GNU_SOURCE
#include <string.h>
#include <vulkan/vulkan.h>

#define TIMED_CALLS(X)          \
  X(vkQueueSubmit)              \
  X(vkQueueSubmit2)             \
  X(vkWaitSemaphores)           \
  X(vkGetSemaphoreCounterValue) \
  X(vkSignalSemaphore)
#define CALL_TIMER_NAME "vk_call_timer"
#include "call_timer.h"

/* The driver's functions, found through the loader's vkGetDeviceProcAddr. */
#define AS_POINTER(name) static _Atomic(PFN_##name) real_##name;
TIMED_CALLS(AS_POINTER)
#undef AS_POINTER

#define TIMED(name, parameters, arguments)                     \
  static VKAPI_ATTR VkResult VKAPI_CALL timed_##name parameters { \
    const uint64_t start = now_ns();                           \
    VkResult result = atomic_load(&real_##name) arguments;     \
    add(index_##name, start);                                  \
    return result;                                             \
  }

TIMED(vkQueueSubmit,
      (VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
       VkFence fence),
      (queue, count, submits, fence))
TIMED(vkQueueSubmit2,
      (VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
       VkFence fence),
      (queue, count, submits, fence))
TIMED(vkWaitSemaphores,
      (VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout),
      (device, info, timeout))
TIMED(vkGetSemaphoreCounterValue,
      (VkDevice device, VkSemaphore semaphore, uint64_t* value),
      (device, semaphore, value))
TIMED(vkSignalSemaphore, (VkDevice device, const VkSemaphoreSignalInfo* info),
      (device, info))

/* Static, and so what vkGetInstanceProcAddr hands out: the exported name
 * would resolve to the loader's in a process that links the loader. */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
timed_vkGetDeviceProcAddr(VkDevice device, const char* name) {
  static PFN_vkGetDeviceProcAddr real = NULL;
  if (real == NULL) {
    real = (PFN_vkGetDeviceProcAddr)next_definition("vkGetDeviceProcAddr");
  }
  PFN_vkVoidFunction function = real(device, name);
  if (function == NULL) return NULL;
  /* The KHR names are the same functions (Vulkan 1.2 promoted them). */
#define WRAP(entry)                                                         \
  if (strcmp(name, #entry) == 0 || strcmp(name, #entry "KHR") == 0) {       \
    PFN_##entry expected = NULL;                                            \
    atomic_compare_exchange_strong(&real_##entry, &expected,                \
                                   (PFN_##entry)function);                  \
    return (PFN_vkVoidFunction)timed_##entry;                               \
  }
  TIMED_CALLS(WRAP)
#undef WRAP
  return function;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                             const char* name) {
  return timed_vkGetDeviceProcAddr(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  static PFN_vkGetInstanceProcAddr real = NULL;
  if (real == NULL) real = (PFN_vkGetInstanceProcAddr)next_definition(__func__);
  if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
    return (PFN_vkVoidFunction)timed_vkGetDeviceProcAddr;
  }
  return real(instance, name);
}
