// The SPIR-V reader on push constant blocks that nest structs (see
// nested_spirv.hpp), without a device: reflect_spirv with the SDK's fake
// host. Each struct type is laid out once, so a module whose block has
// exponentially many paths down to its floats reflects at once (a reader
// that walked every path would not finish before CTest's timeout); nesting
// is refused past a limit the message names; blocks of 4 GiB or more are
// refused rather than cut to 32 bits.
#include "spirv_reader.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "nested_spirv.hpp"
#include "testing/fake_host.hpp"

namespace halo::vk {
namespace {

using halo_vulkan_test::MemberOffsets;
using halo_vulkan_test::module_bytes;
using halo_vulkan_test::nested_push_constant_module;

constexpr char kNestingLimit[] =
    "nests structs, arrays, vectors or matrices more than 16 levels deep "
    "(halo's limit)";

// What reflect_spirv made of a module.
struct Reflection {
  bool ok = false;
  std::string error;
  SpirvEntryPoints points{sdk::HostAllocator<SpirvEntryPoint>(
      sdk::testing::fake_host())};
};

Reflection reflect(const std::vector<uint32_t>& words) {
  Reflection reflection;
  ErrorText error;
  reflection.ok = reflect_spirv(sdk::testing::fake_host(), words.data(),
                                words.size() * 4, &reflection.points, &error);
  if (!reflection.ok) reflection.error = error.text;
  return reflection;
}

// Expects |words| to reflect as one entry point "main" with no buffers and
// |constant_size| bytes of constants.
void expect_constants(const std::vector<uint32_t>& words,
                      uint32_t constant_size) {
  const Reflection reflection = reflect(words);
  ASSERT_TRUE(reflection.ok) << reflection.error;
  ASSERT_EQ(reflection.points.size(), 1u);
  EXPECT_STREQ(reflection.points[0].name, "main");
  EXPECT_EQ(reflection.points[0].binding_count, 0u);
  EXPECT_EQ(reflection.points[0].constant_size, constant_size);
}

// Expects |words| to be refused with a message holding |reason|.
void expect_refused(const std::vector<uint32_t>& words,
                    const std::string& reason) {
  const Reflection reflection = reflect(words);
  EXPECT_FALSE(reflection.ok);
  EXPECT_NE(reflection.error.find(reason), std::string::npos)
      << "'" << reason << "' missing from: " << reflection.error;
}

TEST(SpirvReaderNesting, FourteenLevelsOfFourMembersReflectExactly) {
  // 4^14 floats: the 1 GiB a compiler would lay out. (A device refuses so
  // many constants; reflection must still answer, and quickly.)
  expect_constants(nested_push_constant_module(4, 14), 4u << 28);
}

TEST(SpirvReaderNesting, StoredRegressionInputIsTheFourteenLevelModule) {
  // The module is kept as a file too, a seed for fuzzing the reader.
  std::ifstream file(HALO_TEST_VULKAN_DATA_DIR "/nested_push_constants.spv",
                     std::ios::binary);
  ASSERT_TRUE(file.good()) << "cannot read nested_push_constants.spv";
  const std::vector<uint8_t> stored{std::istreambuf_iterator<char>(file),
                                    std::istreambuf_iterator<char>()};
  EXPECT_EQ(stored, module_bytes(nested_push_constant_module(4, 14)));
}

TEST(SpirvReaderNesting, EachStructIsLaidOutOnce) {
  // 8^16 paths lead from the block down to its floats, all at offset 0.
  expect_constants(
      nested_push_constant_module(8, 16, MemberOffsets::kOverlapping), 4);
}

TEST(SpirvReaderNesting, RefusesNestingPastTheLimit) {
  expect_constants(nested_push_constant_module(1, 16), 4);
  expect_refused(nested_push_constant_module(1, 17), kNestingLimit);
  expect_refused(
      nested_push_constant_module(4, 20, MemberOffsets::kOverlapping),
      kNestingLimit);
  expect_refused(nested_push_constant_module(1, 100000), kNestingLimit);
}

TEST(SpirvReaderNesting, RefusesBlocksOfFourGibibytesOrMore) {
  // Exactly 2^32 bytes, one more than the 32-bit constant_size can say.
  expect_refused(nested_push_constant_module(4, 15),
                 "push constant variable 5 is 4 GiB or larger");
}

}  // namespace
}  // namespace halo::vk
