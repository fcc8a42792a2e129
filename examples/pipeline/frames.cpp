// Decode and check: the host ends of the pipeline.
#include "frames.hpp"

namespace pipeline {
namespace {

uint64_t round_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

float x_of(uint64_t frame, uint32_t i) { return static_cast<float>((i * 7u + frame) % 1024u); }
float y_of(uint64_t frame, uint32_t i) { return static_cast<float>((i + frame) % 7u); }

}  // namespace

FrameLayout::FrameLayout(uint32_t elements, uint64_t alignment)
    : elements(elements),
      alignment(alignment),
      array_bytes(uint64_t{elements} * sizeof(float)),
      x_offset(0),
      y_offset(round_up(array_bytes, alignment)),
      out_offset(2 * round_up(array_bytes, alignment)),
      total_bytes(3 * round_up(array_bytes, alignment)) {}

void decode(uint64_t frame, const FrameLayout& layout, unsigned char* memory) {
  float* x = reinterpret_cast<float*>(memory + layout.x_offset);
  float* y = reinterpret_cast<float*>(memory + layout.y_offset);
  for (uint32_t i = 0; i < layout.elements; ++i) {
    x[i] = x_of(frame, i);
    y[i] = y_of(frame, i);
  }
}

size_t count_wrong(uint64_t frame, const FrameLayout& layout, const unsigned char* memory) {
  const float* out = reinterpret_cast<const float*>(memory + layout.out_offset);
  size_t wrong = 0;
  for (uint32_t i = 0; i < layout.elements; ++i) {
    const float x = x_of(frame, i);
    const float filtered = kScale * x + y_of(frame, i);  // filter
    const float combined = filtered + x * x;              // combine
    if (out[i] != kScale * x + combined) ++wrong;         // blend
  }
  return wrong;
}

}  // namespace pipeline
