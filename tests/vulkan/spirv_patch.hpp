// Editing SPIR-V modules word by word, to derive broken or unusual modules
// from a valid one: find instructions by opcode, change their words, remove
// them or insert new ones. Knows only the module's framing (a five-word
// header, then instructions whose first word holds the word count in the
// high half and the opcode in the low half).
#ifndef HALO_TESTS_VULKAN_SPIRV_PATCH_HPP_
#define HALO_TESTS_VULKAN_SPIRV_PATCH_HPP_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace halo_vulkan_test {

// The opcodes, decorations and execution models the tests edit.
inline constexpr uint32_t kSpirvMagic = 0x07230203;
inline constexpr uint32_t kOpEntryPoint = 15;
inline constexpr uint32_t kOpFunction = 54;
inline constexpr uint32_t kOpFunctionEnd = 56;
inline constexpr uint32_t kOpDecorate = 71;
inline constexpr uint32_t kDecorationBlock = 2;
inline constexpr uint32_t kDecorationBufferBlock = 3;
inline constexpr uint32_t kDecorationBinding = 33;
inline constexpr uint32_t kDecorationDescriptorSet = 34;
inline constexpr uint32_t kExecutionModelVertex = 0;

class SpirvModule {
 public:
  // Takes the bytes of a module (a multiple of 4, little-endian).
  explicit SpirvModule(const std::vector<uint8_t>& bytes);

  std::vector<uint32_t>& words() { return words_; }
  const std::vector<uint32_t>& words() const { return words_; }
  std::vector<uint8_t> bytes() const;

  // Word offsets of every instruction with |opcode| for which |match| (given
  // the instruction's offset) returns true, in module order.
  std::vector<size_t> find(
      uint32_t opcode,
      const std::function<bool(size_t at)>& match = nullptr) const;
  // The offset of the only match of find(); fails the test (and returns 0)
  // when there is none or more than one.
  size_t find_one(uint32_t opcode,
                  const std::function<bool(size_t at)>& match = nullptr) const;
  // The offset of "OpDecorate <target> |decoration| <value>" for the target
  // whose |decoration| operand is |value| (say Binding 1).
  size_t find_decoration(uint32_t decoration, uint32_t value) const;

  uint32_t word_count(size_t at) const { return words_[at] >> 16; }
  uint32_t opcode(size_t at) const { return words_[at] & 0xFFFF; }

  // Removes the instruction at |at|.
  void remove(size_t at);
  // Inserts |instruction| (whole words, first word included) before the
  // instruction at |at|.
  void insert(size_t at, const std::vector<uint32_t>& instruction);

  // Builds "OpEntryPoint |model| |function| |name| |interface|...".
  static std::vector<uint32_t> entry_point(
      uint32_t model, uint32_t function, const std::string& name,
      const std::vector<uint32_t>& interface);
  // The function id and interface ids of the entry point at |at|.
  uint32_t entry_function(size_t at) const { return words_[at + 2]; }
  std::vector<uint32_t> entry_interface(size_t at) const;

 private:
  std::vector<uint32_t> words_;
};

}  // namespace halo_vulkan_test

#endif  // HALO_TESTS_VULKAN_SPIRV_PATCH_HPP_
