// The SPIR-V reader's workgroup sizes, without a device: reflect_spirv with
// the SDK's fake host over small modules written word by word. The size
// comes from LocalSize literals, from LocalSizeId constants (specialization
// constants at their defaults), or from the constant decorated BuiltIn
// WorkgroupSize, which takes precedence; a size that needs a specialization
// constant expression evaluated is {0, 0, 0}, and a LocalSize without its
// three sizes is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "spirv_reader.hpp"
#include "testing/fake_host.hpp"

namespace halo::vk {
namespace {

enum : uint32_t {
  kOpCapability = 17, kOpMemoryModel = 14, kOpEntryPoint = 15,
  kOpExecutionMode = 16, kOpExecutionModeId = 331, kOpDecorate = 71,
  kOpTypeVoid = 19, kOpTypeFunction = 33, kOpTypeInt = 21,
  kOpTypeVector = 23, kOpConstant = 43, kOpSpecConstant = 50,
  kOpSpecConstantComposite = 51, kOpSpecConstantOp = 52, kOpFunction = 54,
  kOpLabel = 248, kOpReturn = 253, kOpFunctionEnd = 56,
};
enum : uint32_t {
  kCapabilityShader = 1, kAddressingLogical = 0, kMemoryGLSL450 = 1,
  kModelGLCompute = 5, kModeLocalSize = 17, kModeLocalSizeId = 38,
  kDecorationBuiltIn = 11, kBuiltInWorkgroupSize = 25, kIAdd = 128,
};

// Ids every module below uses; constants take ids from kFirstFree on.
enum : uint32_t {
  kVoid = 1, kFunctionType = 2, kUint = 3, kUvec3 = 4, kMain = 5,
  kSecond = 6, kLabel = 7, kSecondLabel = 8, kFirstFree = 9,
};

// A SPIR-V 1.2 module of GLCompute entry points "main" (and, with
// |second_entry|, "second", a function of its own), whose execution modes,
// decorations and constants the test adds before the functions are
// written.
class Module {
 public:
  explicit Module(bool second_entry = false) {
    emit(kOpCapability, {kCapabilityShader});
    emit(kOpMemoryModel, {kAddressingLogical, kMemoryGLSL450});
    emit(kOpEntryPoint, entry_point(kMain, "main"));
    if (second_entry) emit(kOpEntryPoint, entry_point(kSecond, "second"));
    second_entry_ = second_entry;
  }

  // Appends instruction |opcode| with |operands| to the preamble.
  void emit(uint32_t opcode, const std::vector<uint32_t>& operands) {
    std::vector<uint32_t>& target = types_started_ ? types_ : words_;
    target.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
    target.insert(target.end(), operands.begin(), operands.end());
  }
  // Starts the types and constants, after every mode and decoration.
  void begin_types() {
    types_started_ = true;
    emit(kOpTypeVoid, {kVoid});
    emit(kOpTypeFunction, {kFunctionType, kVoid});
    emit(kOpTypeInt, {kUint, 32, 0});
    emit(kOpTypeVector, {kUvec3, kUint, 3});
  }
  // Defines a constant (or, with |opcode| OpSpecConstant, a specialization
  // constant's default) of |value|; returns its id.
  uint32_t constant(uint32_t value, uint32_t opcode = kOpConstant) {
    const uint32_t id = next_id_++;
    emit(opcode, {kUint, id, value});
    return id;
  }
  // Reserves an id for an instruction the test emits itself.
  uint32_t new_id() { return next_id_++; }

  std::vector<uint32_t> words() {
    if (!types_started_) begin_types();
    std::vector<uint32_t> module = {0x07230203, 0x00010200, 0, next_id_, 0};
    module.insert(module.end(), words_.begin(), words_.end());
    module.insert(module.end(), types_.begin(), types_.end());
    append_function(&module, kMain, kLabel);
    if (second_entry_) append_function(&module, kSecond, kSecondLabel);
    return module;
  }

 private:
  static std::vector<uint32_t> entry_point(uint32_t function, const char* name) {
    uint32_t packed[2] = {};  // Names of up to 7 bytes and their NUL.
    std::memcpy(packed, name, std::strlen(name));
    return {kModelGLCompute, function, packed[0], packed[1]};
  }
  static void append_function(std::vector<uint32_t>* module, uint32_t function,
                              uint32_t label) {
    const std::vector<uint32_t> words = {
        5u << 16 | kOpFunction, kVoid, function, 0, kFunctionType,
        2u << 16 | kOpLabel, label,
        1u << 16 | kOpReturn,
        1u << 16 | kOpFunctionEnd};
    module->insert(module->end(), words.begin(), words.end());
  }

  std::vector<uint32_t> words_, types_;
  bool types_started_ = false;
  bool second_entry_ = false;
  uint32_t next_id_ = kFirstFree;
};

struct Reflection {
  bool ok = false;
  std::string error;
  SpirvEntryPoints points{sdk::HostAllocator<SpirvEntryPoint>(
      sdk::testing::fake_host())};
};

Reflection reflect(Module& module) {
  const std::vector<uint32_t> words = module.words();
  Reflection reflection;
  ErrorText error;
  reflection.ok = reflect_spirv(sdk::testing::fake_host(), words.data(),
                                words.size() * 4, &reflection.points, &error);
  if (!reflection.ok) reflection.error = error.text;
  return reflection;
}

// Expects |module| to reflect with entry point |ordinal| of size |expected|.
void expect_size(Module& module, const std::vector<uint32_t>& expected,
                 size_t ordinal = 0) {
  const Reflection reflection = reflect(module);
  ASSERT_TRUE(reflection.ok) << reflection.error;
  ASSERT_GT(reflection.points.size(), ordinal);
  const uint32_t* size = reflection.points[ordinal].workgroup_size;
  EXPECT_EQ(std::vector<uint32_t>(size, size + 3), expected)
      << "entry point " << reflection.points[ordinal].name;
}

TEST(SpirvWorkgroupSize, LocalSizeGivesItsLiterals) {
  Module module;
  module.emit(kOpExecutionMode, {kMain, kModeLocalSize, 8, 4, 2});
  expect_size(module, {8, 4, 2});
}

TEST(SpirvWorkgroupSize, LocalSizeIdGivesItsConstantsAndSpecDefaults) {
  Module module;
  // Ids of the constants defined below, in order.
  const uint32_t x = kFirstFree, y = kFirstFree + 1, z = kFirstFree + 2;
  module.emit(kOpExecutionModeId, {kMain, kModeLocalSizeId, x, y, z});
  module.begin_types();
  EXPECT_EQ(module.constant(16), x);
  EXPECT_EQ(module.constant(2, kOpSpecConstant), y);
  EXPECT_EQ(module.constant(1), z);
  expect_size(module, {16, 2, 1});
}

TEST(SpirvWorkgroupSize, TheBuiltInTakesPrecedenceOverLocalSize) {
  Module module;
  const uint32_t x = kFirstFree, one = kFirstFree + 1, size = kFirstFree + 2;
  module.emit(kOpExecutionMode, {kMain, kModeLocalSize, 1, 1, 1});
  module.emit(kOpDecorate, {size, kDecorationBuiltIn, kBuiltInWorkgroupSize});
  module.begin_types();
  EXPECT_EQ(module.constant(32, kOpSpecConstant), x);
  EXPECT_EQ(module.constant(1), one);
  EXPECT_EQ(module.new_id(), size);
  module.emit(kOpSpecConstantComposite, {kUvec3, size, x, one, one});
  expect_size(module, {32, 1, 1});
}

TEST(SpirvWorkgroupSize, SpecConstantExpressionsAreUnknown) {
  Module module;
  const uint32_t a = kFirstFree, sum = kFirstFree + 1;
  module.emit(kOpExecutionModeId, {kMain, kModeLocalSizeId, sum, a, a});
  module.begin_types();
  EXPECT_EQ(module.constant(4, kOpSpecConstant), a);
  EXPECT_EQ(module.new_id(), sum);
  module.emit(kOpSpecConstantOp, {kUint, sum, kIAdd, a, a});
  expect_size(module, {0, 0, 0});
}

TEST(SpirvWorkgroupSize, NoSizeIsUnknown) {
  Module module;
  expect_size(module, {0, 0, 0});
}

TEST(SpirvWorkgroupSize, EachEntryPointHasItsOwn) {
  Module module(/*second_entry=*/true);
  module.emit(kOpExecutionMode, {kSecond, kModeLocalSize, 16, 16, 1});
  module.emit(kOpExecutionMode, {kMain, kModeLocalSize, 64, 1, 1});
  expect_size(module, {64, 1, 1}, 0);
  expect_size(module, {16, 16, 1}, 1);
}

TEST(SpirvWorkgroupSize, RefusesALocalSizeWithoutItsThreeSizes) {
  Module module;
  module.emit(kOpExecutionMode, {kMain, kModeLocalSize, 8});
  const Reflection reflection = reflect(module);
  EXPECT_FALSE(reflection.ok);
  EXPECT_NE(reflection.error.find("lacks one of its three sizes"),
            std::string::npos)
      << reflection.error;
}

}  // namespace
}  // namespace halo::vk
