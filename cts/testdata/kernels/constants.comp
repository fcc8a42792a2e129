// constants: four words per element from four constants of different types,
// so that a swapped, dropped or misaligned constant shows (see
// ../README.md):
//   out[4i+0] = a + i          out[4i+1] = uint(b * int(i))
//   out[4i+2] = uint(c * i)    out[4i+3] = d ^ i                  for i < n
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) writeonly buffer Out { uint out_values[]; };
layout(push_constant, std430) uniform Constants {
  uint a;
  int b;
  float c;
  uint d;
  uint n;
} push;

void main() {
  uint i = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x;
  if (i >= push.n) return;
  out_values[4u * i + 0u] = push.a + i;
  out_values[4u * i + 1u] = uint(push.b * int(i));
  out_values[4u * i + 2u] = uint(push.c * float(i));
  out_values[4u * i + 3u] = push.d ^ i;
}
