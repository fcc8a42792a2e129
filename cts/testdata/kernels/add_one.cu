// add_one: data[i] += 1 for i < n, in place (see ../README.md).
__global__ void __launch_bounds__(64) add_one(unsigned int* data,
                                              unsigned int n) {
  const unsigned int i = blockIdx.x * 64u + threadIdx.x;
  if (i < n) data[i] += 1u;
}
