// The frames halo-pipeline streams and the plain C++ reference it checks
// them against. A frame is three arrays of n floats in one host memory:
// x and y, made by the decode stage, and out, made by the device stages
// (stages.hpp). Small integers keep every value exact in float, so each
// device's result must equal the reference bit for bit.
#ifndef HALO_PIPELINE_FRAMES_HPP_
#define HALO_PIPELINE_FRAMES_HPP_

#include <cstddef>
#include <cstdint>

namespace pipeline {

// The scale of the saxpy stages.
inline constexpr float kScale = 2.0f;

// Where each array starts in a frame's memory, and the bytes the frame
// takes: arrays start on |alignment| (a power of two).
struct FrameLayout {
  explicit FrameLayout(uint32_t elements, uint64_t alignment);

  uint32_t elements;
  uint64_t alignment;
  uint64_t array_bytes;  // elements * sizeof(float)
  uint64_t x_offset;
  uint64_t y_offset;
  uint64_t out_offset;
  uint64_t total_bytes;
};

// Writes frame |frame|'s x and y into |memory| (the decode stage).
void decode(uint64_t frame, const FrameLayout& layout, unsigned char* memory);

// Counts the elements of out in |memory| that differ from the reference
// for frame |frame| (the check stage).
size_t count_wrong(uint64_t frame, const FrameLayout& layout, const unsigned char* memory);

}  // namespace pipeline

#endif  // HALO_PIPELINE_FRAMES_HPP_
