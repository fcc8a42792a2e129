// The fill loop against a byte-by-byte reference: every pattern length,
// start phase and length around the 8-byte word boundaries, bytes outside
// the range untouched.
#include "transfer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace halo::cpu {
namespace {

TEST(TransferTest, FillMatchesTheReferenceForEveryPhaseAndLength) {
  const uint8_t patterns[3][4] = {
      {0x5A, 0, 0, 0}, {0x12, 0x34, 0, 0}, {0x01, 0x02, 0x03, 0x04}};
  const size_t lengths[3] = {1, 2, 4};
  for (int p = 0; p < 3; ++p) {
    const size_t pattern_length = lengths[p];
    for (size_t start = 0; start < 16; start += pattern_length) {
      for (size_t length = 0; length <= 48; length += pattern_length) {
        SCOPED_TRACE(testing::Message() << "pattern " << pattern_length
                                        << " start " << start << " length "
                                        << length);
        alignas(64) uint8_t bytes[96];
        std::fill(bytes, bytes + sizeof(bytes), uint8_t{0xEE});
        fill_pattern(bytes + start, length, patterns[p], pattern_length);
        for (size_t i = 0; i < sizeof(bytes); ++i) {
          uint8_t expected = 0xEE;
          if (i >= start && i < start + length) {
            expected = patterns[p][(i - start) % pattern_length];
          }
          ASSERT_EQ(bytes[i], expected) << "byte " << i;
        }
      }
    }
  }
}

TEST(TransferTest, RepeatedBytePatternsAndLargeFills) {
  const uint8_t same[4] = {0x77, 0x77, 0x77, 0x77};
  const uint8_t mixed[4] = {1, 2, 3, 4};
  std::vector<uint8_t> bytes(1 << 20, 0);
  fill_pattern(bytes.data() + 4, bytes.size() - 8, same, 4);
  EXPECT_EQ(bytes[3], 0);
  EXPECT_EQ(bytes[4], 0x77);
  EXPECT_EQ(bytes[bytes.size() - 5], 0x77);
  EXPECT_EQ(bytes[bytes.size() - 4], 0);
  fill_pattern(bytes.data(), bytes.size(), mixed, 4);
  for (size_t i = 0; i < bytes.size(); ++i) {
    ASSERT_EQ(bytes[i], mixed[i % 4]) << i;
  }
}

}  // namespace
}  // namespace halo::cpu
