// multiply_add: out[i] = a[i] + b[i] * c[i] for i < n, four bindings (see
// ../README.md).
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void multiply_add(
    __global float* out, __global const float* a, __global const float* b,
    __global const float* c, uint n) {
  uint i = (uint)get_group_id(0) * 64u + (uint)get_local_id(0);
  if (i < n) out[i] = a[i] + b[i] * c[i];
}
