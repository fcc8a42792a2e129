// add_one: data[i] += 1 for i < n, in place (see ../README.md).
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer Data { uint data[]; };
layout(push_constant, std430) uniform Constants {
  uint n;
} push;

void main() {
  uint i = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
  if (i < push.n) data[i] += 1u;
}
