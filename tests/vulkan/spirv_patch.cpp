// Editing SPIR-V modules word by word.
#include "spirv_patch.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace halo_vulkan_test {
namespace {

constexpr size_t kHeaderWords = 5;

}  // namespace

SpirvModule::SpirvModule(const std::vector<uint8_t>& bytes)
    : words_(bytes.size() / 4) {
  EXPECT_EQ(bytes.size() % 4, 0u) << "not a SPIR-V module";
  if (!words_.empty())
    std::memcpy(words_.data(), bytes.data(), words_.size() * 4);
  EXPECT_TRUE(words_.size() > kHeaderWords && words_[0] == kSpirvMagic)
      << "not a little-endian SPIR-V module";
}

std::vector<uint8_t> SpirvModule::bytes() const {
  std::vector<uint8_t> bytes(words_.size() * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), words_.data(), bytes.size());
  return bytes;
}

std::vector<size_t> SpirvModule::find(
    uint32_t opcode, const std::function<bool(size_t at)>& match) const {
  std::vector<size_t> found;
  for (size_t at = kHeaderWords; at < words_.size();) {
    const uint32_t count = word_count(at);
    if (count == 0) break;  // A broken module: nothing further is framed.
    if (this->opcode(at) == opcode && (match == nullptr || match(at))) {
      found.push_back(at);
    }
    at += count;
  }
  return found;
}

size_t SpirvModule::find_one(
    uint32_t opcode, const std::function<bool(size_t at)>& match) const {
  const std::vector<size_t> found = find(opcode, match);
  EXPECT_EQ(found.size(), 1u) << "instructions with opcode " << opcode;
  return found.size() == 1 ? found[0] : 0;
}

size_t SpirvModule::find_decoration(uint32_t decoration, uint32_t value) const {
  return find_one(kOpDecorate, [&](size_t at) {
    return word_count(at) == 4 && words_[at + 2] == decoration &&
           words_[at + 3] == value;
  });
}

void SpirvModule::remove(size_t at) {
  words_.erase(words_.begin() + at, words_.begin() + at + word_count(at));
}

void SpirvModule::insert(size_t at, const std::vector<uint32_t>& instruction) {
  words_.insert(words_.begin() + at, instruction.begin(), instruction.end());
}

std::vector<uint32_t> SpirvModule::entry_point(
    uint32_t model, uint32_t function, const std::string& name,
    const std::vector<uint32_t>& interface) {
  // The name is a NUL-terminated literal padded with NULs to whole words.
  std::vector<uint32_t> name_words(name.size() / 4 + 1, 0);
  std::memcpy(name_words.data(), name.data(), name.size());
  std::vector<uint32_t> instruction = {0, model, function};
  instruction.insert(instruction.end(), name_words.begin(), name_words.end());
  instruction.insert(instruction.end(), interface.begin(), interface.end());
  instruction[0] =
      static_cast<uint32_t>(instruction.size() << 16) | kOpEntryPoint;
  return instruction;
}

std::vector<uint32_t> SpirvModule::entry_interface(size_t at) const {
  size_t word = at + 3;
  const size_t end = at + word_count(at);
  // Skip the name: its last word holds its terminating NUL.
  while (word < end) {
    uint32_t value = words_[word++];
    if ((value & 0xFF000000u) == 0 || (value & 0x00FF0000u) == 0 ||
        (value & 0x0000FF00u) == 0 || (value & 0x000000FFu) == 0) {
      break;
    }
  }
  return std::vector<uint32_t>(words_.begin() + word, words_.begin() + end);
}

}  // namespace halo_vulkan_test
