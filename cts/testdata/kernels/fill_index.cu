// fill_index: out[i] = base + i for i < n (see ../README.md).
__global__ void __launch_bounds__(64) fill_index(unsigned int* out,
                                                 unsigned int base,
                                                 unsigned int n) {
  const unsigned int i = blockIdx.x * 64u + threadIdx.x;
  if (i < n) out[i] = base + i;
}
