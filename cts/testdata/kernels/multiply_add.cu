// multiply_add: out[i] = a[i] + b[i] * c[i] for i < n, four bindings (see
// ../README.md).
__global__ void __launch_bounds__(64) multiply_add(float* out, const float* a,
                                                   const float* b,
                                                   const float* c,
                                                   unsigned int n) {
  const unsigned int i = blockIdx.x * 64u + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i] * c[i];
}
