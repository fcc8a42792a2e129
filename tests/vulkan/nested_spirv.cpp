// Builds the nested push constant modules of nested_spirv.hpp word by word.
#include "nested_spirv.hpp"

#include <cstring>

namespace halo_vulkan_test {
namespace {

// Opcodes and operands of the instructions the module uses.
enum : uint32_t {
  kOpCapability = 17, kOpMemoryModel = 14, kOpEntryPoint = 15,
  kOpExecutionMode = 16, kOpDecorate = 71, kOpMemberDecorate = 72,
  kOpTypeVoid = 19, kOpTypeFunction = 33, kOpTypeFloat = 22,
  kOpTypeStruct = 30, kOpTypePointer = 32, kOpVariable = 59,
  kOpFunction = 54, kOpLabel = 248, kOpReturn = 253, kOpFunctionEnd = 56,
};
enum : uint32_t {
  kCapabilityShader = 1, kAddressingLogical = 0, kMemoryGLSL450 = 1,
  kModelGLCompute = 5, kModeLocalSize = 17, kDecorationBlock = 2,
  kDecorationOffset = 35, kStoragePushConstant = 9,
};

class Emitter {
 public:
  explicit Emitter(std::vector<uint32_t>* words) : words_(words) {}
  void operator()(uint32_t opcode, std::vector<uint32_t> operands) {
    words_->push_back(static_cast<uint32_t>(operands.size() + 1) << 16 |
                      opcode);
    words_->insert(words_->end(), operands.begin(), operands.end());
  }

 private:
  std::vector<uint32_t>* words_;
};

}  // namespace

std::vector<uint32_t> nested_push_constant_module(uint32_t members,
                                                  uint32_t levels,
                                                  MemberOffsets offsets) {
  // Ids: 1 void, 2 function type, 3 float, 4 pointer, 5 variable, 6 main,
  // 7 label, then one struct per level (8 is the innermost).
  const uint32_t kVoid = 1, kFunctionType = 2, kFloat = 3, kPointer = 4,
                 kVariable = 5, kMain = 6, kLabel = 7, kFirstStruct = 8;
  const uint32_t block = kFirstStruct + levels - 1;
  std::vector<uint32_t> words = {0x07230203, 0x00010000, 0, block + 1, 0};
  Emitter emit(&words);
  emit(kOpCapability, {kCapabilityShader});
  emit(kOpMemoryModel, {kAddressingLogical, kMemoryGLSL450});
  uint32_t name = 0;
  std::memcpy(&name, "main", 4);
  emit(kOpEntryPoint, {kModelGLCompute, kMain, name, 0});
  emit(kOpExecutionMode, {kMain, kModeLocalSize, 1, 1, 1});
  emit(kOpDecorate, {block, kDecorationBlock});
  uint32_t member_size = 4;  // A float, then each level in turn.
  for (uint32_t level = 0; level < levels; ++level) {
    for (uint32_t member = 0; member < members; ++member) {
      const uint32_t offset =
          offsets == MemberOffsets::kPacked ? member * member_size : 0;
      emit(kOpMemberDecorate,
           {kFirstStruct + level, member, kDecorationOffset, offset});
    }
    member_size *= members;
  }
  emit(kOpTypeVoid, {kVoid});
  emit(kOpTypeFunction, {kFunctionType, kVoid});
  emit(kOpTypeFloat, {kFloat, 32});
  for (uint32_t level = 0; level < levels; ++level) {
    std::vector<uint32_t> operands = {kFirstStruct + level};
    operands.insert(operands.end(), members,
                    level == 0 ? kFloat : kFirstStruct + level - 1);
    emit(kOpTypeStruct, operands);
  }
  emit(kOpTypePointer, {kPointer, kStoragePushConstant, block});
  emit(kOpVariable, {kPointer, kVariable, kStoragePushConstant});
  emit(kOpFunction, {kVoid, kMain, 0, kFunctionType});
  emit(kOpLabel, {kLabel});
  emit(kOpReturn, {});
  emit(kOpFunctionEnd, {});
  return words;
}

std::vector<uint8_t> module_bytes(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

}  // namespace halo_vulkan_test
