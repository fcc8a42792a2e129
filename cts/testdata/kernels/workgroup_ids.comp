// workgroup_ids: each workgroup writes its own id in x, y and z, for a grid
// in three dimensions (see ../README.md): for workgroup (x, y, z) of a grid
// of X * Y * Z and local index l < 64 (writing nothing for an id outside
// the grid, which only a broken dispatch passes),
//   out[((z * Y + y) * X + x) * 64 + l] = x | y << 8 | z << 16 | l << 24.
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) writeonly buffer Out { uint out_values[]; };

void main() {
  const uvec3 id = gl_WorkGroupID;
  const uint l = gl_LocalInvocationID.x;
  // Only a broken dispatch passes an id outside the grid.
  if (any(greaterThanEqual(id, gl_NumWorkGroups))) return;
  const uint first = ((id.z * gl_NumWorkGroups.y + id.y) * gl_NumWorkGroups.x + id.x) * 64u;
  out_values[first + l] = id.x | id.y << 8 | id.z << 16 | l << 24;
}
