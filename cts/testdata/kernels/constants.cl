// constants: four words per element from four constants of different types,
// so that a swapped, dropped or misaligned constant shows (see
// ../README.md):
//   out[4i+0] = a + i          out[4i+1] = (uint)(b * (int)i)
//   out[4i+2] = (uint)(c * i)  out[4i+3] = d ^ i                  for i < n
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void constants(
    __global uint* out, uint a, int b, float c, uint d, uint n) {
  uint i = (uint)get_group_id(0) * 64u + (uint)get_local_id(0);
  if (i >= n) return;
  out[4u * i + 0u] = a + i;
  out[4u * i + 1u] = (uint)(b * (int)i);
  out[4u * i + 2u] = (uint)(c * (float)i);
  out[4u * i + 3u] = d ^ i;
}
