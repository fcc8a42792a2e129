// SPIR-V modules whose push constant block nests structs: the block is a
// struct of |members| members, each a struct of |members| members, and so
// on |levels| deep, down to 32-bit floats. Every level reuses the one below,
// so a level multiplies the block's size by |members| while the module
// grows by a few dozen words: a reader that walks each member's type anew
// does work exponential in |levels|.
#ifndef HALO_TESTS_VULKAN_NESTED_SPIRV_HPP_
#define HALO_TESTS_VULKAN_NESTED_SPIRV_HPP_

#include <cstdint>
#include <vector>

namespace halo_vulkan_test {

// Where a struct's members lie.
enum class MemberOffsets {
  // One after the other, as a compiler lays them out: the block takes
  // 4 * members^levels bytes, which must fit 32 bits for the offsets to.
  kPacked,
  // All at offset 0, which Vulkan forbids but a reader must survive: the
  // block takes 4 bytes however many paths lead down to its floats.
  kOverlapping,
};

// A SPIR-V 1.0 module with one GLCompute entry point, "main", and a push
// constant block nested |levels| (at least 1) deep with |members| (at least
// 1) members per struct. Valid for Vulkan with packed offsets.
std::vector<uint32_t> nested_push_constant_module(
    uint32_t members, uint32_t levels,
    MemberOffsets offsets = MemberOffsets::kPacked);

// The module's bytes, as an executable takes them.
std::vector<uint8_t> module_bytes(const std::vector<uint32_t>& words);

}  // namespace halo_vulkan_test

#endif  // HALO_TESTS_VULKAN_NESTED_SPIRV_HPP_
