// saxpy: y[i] = a * x[i] + y[i] for i < n (see ../README.md).
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) buffer Y { float y[]; };
layout(set = 0, binding = 1, std430) readonly buffer X { float x[]; };
layout(push_constant, std430) uniform Constants {
  float a;
  uint n;
} push;

void main() {
  uint i = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
  if (i < push.n) y[i] = push.a * x[i] + y[i];
}
