// The cpu device's transfer commands as host loops: fill, update and copy.
#ifndef HALO_CPU_TRANSFER_HPP_
#define HALO_CPU_TRANSFER_HPP_

#include <cstddef>
#include <cstdint>

namespace halo::cpu {

// Repeats the |pattern_length|-byte |pattern| (1, 2 or 4) over |length|
// bytes at |target|. |target| must be a multiple of |pattern_length| bytes
// from an 8-byte boundary (a fill's offset is a multiple of the pattern
// length and buffers are 64-byte aligned), so that pattern byte k lands on
// every address a with a % pattern_length == k.
void fill_pattern(uint8_t* target, uint64_t length, const uint8_t* pattern,
                  size_t pattern_length) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_TRANSFER_HPP_
