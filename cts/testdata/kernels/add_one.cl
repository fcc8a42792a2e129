// add_one: data[i] += 1 for i < n, in place (see ../README.md).
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void add_one(
    __global uint* data, uint n) {
  uint i = (uint)get_group_id(0) * 64u + (uint)get_local_id(0);
  if (i < n) data[i] += 1u;
}
