// fill_index: out[i] = base + i for i < n (see ../README.md).
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void fill_index(
    __global uint* out, uint base, uint n) {
  uint i = (uint)get_group_id(0) * 64u + (uint)get_local_id(0);
  if (i < n) out[i] = base + i;
}
