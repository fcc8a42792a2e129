// Fill as fast as plain host code can: memset when the pattern is one
// repeated byte, else 8-byte stores of the pattern widened to a word (the
// compiler vectorises the loop), with byte stores for the unaligned ends.
#include "transfer.hpp"

#include <cstring>

namespace halo::cpu {

void fill_pattern(uint8_t* target, uint64_t length, const uint8_t* pattern,
                  size_t pattern_length) noexcept {
  uint8_t word_bytes[8];
  bool one_byte = true;
  for (size_t i = 0; i < sizeof(word_bytes); ++i) {
    word_bytes[i] = pattern[i % pattern_length];
    one_byte = one_byte && word_bytes[i] == pattern[0];
  }
  if (one_byte) {
    std::memset(target, pattern[0], length);
    return;
  }
  // The head runs up to the first 8-byte boundary; since |target| is a
  // multiple of the pattern length from one, that boundary starts a whole
  // pattern, as does every later word.
  uint64_t head = (8 - reinterpret_cast<uintptr_t>(target) % 8) % 8;
  if (head > length) head = length;
  uint64_t i = 0;
  for (; i < head; ++i) target[i] = pattern[i % pattern_length];
  uint64_t word;
  std::memcpy(&word, word_bytes, sizeof(word));
  uint8_t* body = target + i;
  uint64_t words = (length - i) / 8;
  for (uint64_t w = 0; w < words; ++w) {
    std::memcpy(body + w * 8, &word, sizeof(word));
  }
  for (i += words * 8; i < length; ++i) {
    target[i] = pattern[i % pattern_length];
  }
}

}  // namespace halo::cpu
