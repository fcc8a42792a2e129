/* The native baseline of BM_Saxpy: the plain C loop of bench_kernels.c's
 * saxpy_chunked over one thread's share, built with the same flags. */
#include "native_saxpy.h"

void native_saxpy(float* y, const float* x, float a, uint32_t begin,
                  uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) y[i] = a * x[i] + y[i];
}
