// saxpy: y[i] = a * x[i] + y[i] for i < n (see ../README.md).
__global__ void __launch_bounds__(64) saxpy(float* y, const float* x, float a,
                                            unsigned int n) {
  const unsigned int i = blockIdx.x * 64u + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
