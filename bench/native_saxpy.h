/* The plain C saxpy loop the halo dispatch is compared with. */
#ifndef HALO_BENCH_NATIVE_SAXPY_H_
#define HALO_BENCH_NATIVE_SAXPY_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = a * x[i] + y[i] for i in [begin, end). */
void native_saxpy(float* y, const float* x, float a, uint32_t begin,
                  uint32_t end);

#ifdef __cplusplus
}
#endif

#endif /* HALO_BENCH_NATIVE_SAXPY_H_ */
