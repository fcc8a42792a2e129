// workgroup_ids: each workgroup writes its own id in x, y and z, for a grid
// in three dimensions (see ../README.md): for workgroup (x, y, z) of a grid
// of X * Y * Z and local index l < 64 (writing nothing for an id outside
// the grid, which only a broken dispatch passes),
//   out[((z * Y + y) * X + x) * 64 + l] = x | y << 8 | z << 16 | l << 24.
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void workgroup_ids(
    __global uint* out) {
  const uint x = (uint)get_group_id(0), y = (uint)get_group_id(1), z = (uint)get_group_id(2);
  const uint l = (uint)get_local_id(0);
  const uint count_x = (uint)get_num_groups(0), count_y = (uint)get_num_groups(1);
  // Only a broken dispatch passes an id outside the grid.
  if (x >= count_x || y >= count_y || z >= (uint)get_num_groups(2)) return;
  const uint first = ((z * count_y + y) * count_x + x) * 64u;
  out[first + l] = x | y << 8 | z << 16 | l << 24;
}
