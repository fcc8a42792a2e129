// multiply_add: out[i] = a[i] + b[i] * c[i] for i < n, four bindings (see
// ../README.md).
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) writeonly buffer Out { float out_values[]; };
layout(set = 0, binding = 1, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 2, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 3, std430) readonly buffer C { float c[]; };
layout(push_constant, std430) uniform Constants {
  uint n;
} push;

void main() {
  uint i = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
  if (i < push.n) out_values[i] = a[i] + b[i] * c[i];
}
