// fill_index: out[i] = base + i for i < n (see ../README.md).
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) writeonly buffer Out { uint out_values[]; };
layout(push_constant, std430) uniform Constants {
  uint base;
  uint n;
} push;

void main() {
  uint i = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
  if (i < push.n) out_values[i] = push.base + i;
}
