/* What the call timers (opencl/call_timer.c, vulkan/call_timer.c) share:
 * per call, its count and the nanoseconds spent in it, apart for the
 * process's main thread (a benchmark's timed thread) and every other
 * thread; the next definition of a function after the timer's library;
 * and the report at exit. A timer includes this once, after defining
 * CALL_TIMER_NAME ("cl_call_timer") and TIMED_CALLS(X), the calls it times.
 */
#ifndef HALO_BENCH_CALL_TIMER_H_
#define HALO_BENCH_CALL_TIMER_H_

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum {
#define AS_INDEX(name) index_##name,
  TIMED_CALLS(AS_INDEX)
#undef AS_INDEX
  kCallCount
};

static const char* const kNames[] = {
#define AS_NAME(name) #name,
    TIMED_CALLS(AS_NAME)
#undef AS_NAME
};

/* [call][0: main thread, 1: other threads] */
static _Atomic uint64_t g_calls[kCallCount][2];
static _Atomic uint64_t g_nanoseconds[kCallCount][2];

static uint64_t now_ns(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

/* The definition of |name| after this library: the loader's. */
static void* next_definition(const char* name) {
  void* function = dlsym(RTLD_NEXT, name);
  if (function == NULL) {
    fprintf(stderr, CALL_TIMER_NAME ": no %s after this library\n", name);
    abort();
  }
  return function;
}

/* Adds one call of |index| that began at |start|. */
static void add(int index, uint64_t start) {
  const uint64_t spent = now_ns() - start;
  const int other = gettid() != getpid();
  atomic_fetch_add_explicit(&g_calls[index][other], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&g_nanoseconds[index][other], spent,
                            memory_order_relaxed);
}

__attribute__((destructor)) static void report(void) {
  fprintf(stderr, CALL_TIMER_NAME ": call, main thread calls and ns, "
                  "other threads calls and ns\n");
  for (int i = 0; i < kCallCount; ++i) {
    const uint64_t main_calls = atomic_load(&g_calls[i][0]);
    const uint64_t other_calls = atomic_load(&g_calls[i][1]);
    if (main_calls + other_calls == 0) continue;
    fprintf(stderr, CALL_TIMER_NAME ": %s %llu %llu %llu %llu\n", kNames[i],
            (unsigned long long)main_calls,
            (unsigned long long)atomic_load(&g_nanoseconds[i][0]),
            (unsigned long long)other_calls,
            (unsigned long long)atomic_load(&g_nanoseconds[i][1]));
  }
}

#endif /* HALO_BENCH_CALL_TIMER_H_ */
