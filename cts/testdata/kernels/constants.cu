// constants: four words per element from four constants of different types,
// so that a swapped, dropped or misaligned constant shows (see
// ../README.md):
//   out[4i+0] = a + i          out[4i+1] = (uint)(b * (int)i)
//   out[4i+2] = (uint)(c * i)  out[4i+3] = d ^ i                  for i < n
__global__ void __launch_bounds__(64) constants(unsigned int* out,
                                                unsigned int a, int b,
                                                float c, unsigned int d,
                                                unsigned int n) {
  const unsigned int i = blockIdx.x * 64u + threadIdx.x;
  if (i >= n) return;
  out[4u * i + 0u] = a + i;
  out[4u * i + 1u] = static_cast<unsigned int>(b * static_cast<int>(i));
  out[4u * i + 2u] = static_cast<unsigned int>(c * static_cast<float>(i));
  out[4u * i + 3u] = d ^ i;
}
