// workgroup_ids: each workgroup writes its own id in x, y and z, for a grid
// in three dimensions (see ../README.md): for workgroup (x, y, z) of a grid
// of X * Y * Z and local index l < 64 (writing nothing for an id outside
// the grid, which only a broken dispatch passes),
//   out[((z * Y + y) * X + x) * 64 + l] = x | y << 8 | z << 16 | l << 24.
__global__ void __launch_bounds__(64) workgroup_ids(unsigned int* out) {
  const unsigned int x = blockIdx.x, y = blockIdx.y, z = blockIdx.z;
  const unsigned int l = threadIdx.x;
  // Only a broken dispatch passes an id outside the grid.
  if (x >= gridDim.x || y >= gridDim.y || z >= gridDim.z) return;
  const unsigned int first = ((z * gridDim.y + y) * gridDim.x + x) * 64u;
  out[first + l] = x | y << 8 | z << 16 | l << 24;
}
