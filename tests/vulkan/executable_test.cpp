// SPIR-V executables: what the plugin's reader refuses before the driver
// sees a module, with the reason in the status; modules with several entry
// points; push constant blocks that nest deeply; and module bytes at an
// unaligned address. Every other broken module is derived from a valid CTS
// kernel, so each one differs from a module that builds in exactly one
// respect.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "nested_spirv.hpp"
#include "spirv_patch.hpp"
#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

constexpr char kRefusal[] =
    "halo_executable_create: params->data is malformed or unsupported "
    "SPIR-V: ";
constexpr uint32_t kOpTypeVoid = 19;
constexpr uint32_t kOpMemberDecorate = 72;
constexpr uint32_t kDecorationOffset = 35;

class ExecutableTest : public VulkanTest {
 protected:
  // Expects |bytes| to be refused as INVALID_ARGUMENT whose message starts
  // with kRefusal and holds |reason|, with no executable made.
  void expect_refused(const std::vector<uint8_t>& bytes,
                      const std::string& reason) {
    SCOPED_TRACE(reason);
    ExecutablePtr executable;
    Status status(create_executable(bytes, &executable));
    expect_status(status, HALO_STATUS_INVALID_ARGUMENT, {reason});
    EXPECT_EQ(status.message().rfind(kRefusal, 0), 0u) << status.message();
    EXPECT_EQ(executable, nullptr);
  }

  // Runs entry point |ordinal| of the add_one |executable| over |buffer|
  // (|count| words) and waits for it.
  void add_one(halo_executable_t* executable, uint32_t ordinal,
               halo_buffer_t* buffer, uint32_t count) {
    CommandBufferPtr command_buffer = begin_command_buffer();
    const halo_buffer_binding_t binding = {buffer, 0, HALO_WHOLE_BUFFER};
    halo_dispatch_params_t params = {};
    params.struct_size = sizeof(params);
    params.entry_point = ordinal;
    params.executable = executable;
    params.workgroup_count[0] = (count + 63) / 64;
    params.workgroup_count[1] = 1;
    params.workgroup_count[2] = 1;
    params.constant_size = sizeof(count);
    params.constants = &count;
    params.binding_count = 1;
    params.bindings = &binding;
    HALO_ASSERT_OK(halo_command_buffer_dispatch(command_buffer.get(), &params));
    HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
    SemaphorePtr done = make_semaphore();
    HALO_ASSERT_OK(submit(command_buffer.get(), {}, {}, {done.get()}, {1}));
    HALO_ASSERT_OK(wait(done.get(), 1));
  }

  // The device still builds the valid kernel after the refusals.
  void TearDown() override {
    if (device() != nullptr) {
      ExecutablePtr executable;
      HALO_EXPECT_OK(create_executable(kernel_spirv("add_one"), &executable));
    }
    VulkanTest::TearDown();
  }
};

TEST_F(ExecutableTest, RefusesBytesThatAreNotAModule) {
  const std::vector<uint8_t> valid = kernel_spirv("add_one");
  ASSERT_FALSE(valid.empty());

  std::vector<uint8_t> bytes = valid;
  bytes.push_back(0);
  bytes.push_back(0);
  expect_refused(bytes, "size " + std::to_string(valid.size() + 2) +
                            " is not a multiple of 4");
  bytes.assign(valid.begin(), valid.end() - 1);
  expect_refused(bytes, "size " + std::to_string(valid.size() - 1) +
                            " is not a multiple of 4");
  bytes.assign(valid.begin(), valid.begin() + 16);
  expect_refused(bytes, "16 bytes is shorter than the header");

  SpirvModule module(valid);
  module.words()[0] = 0xDEADBEEF;
  expect_refused(module.bytes(), "magic number 0xdeadbeef is not 0x07230203");
  // A big-endian module reads as the byte-swapped magic number.
  bytes = valid;
  for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
    std::swap(bytes[i], bytes[i + 3]);
    std::swap(bytes[i + 1], bytes[i + 2]);
  }
  expect_refused(bytes, "magic number 0x03022307");

  for (uint32_t version :
       {0x00020000u, 0x00010700u, 0x00000100u, 0x00010001u}) {
    SpirvModule versioned(valid);
    versioned.words()[1] = version;
    char text[16];
    std::snprintf(text, sizeof(text), "0x%08x", version);
    expect_refused(versioned.bytes(),
                   std::string("version word ") + text + " is not SPIR-V");
  }
  for (uint32_t bound : {0u, 0xFFFFFFFFu}) {
    SpirvModule bounded(valid);
    bounded.words()[3] = bound;
    expect_refused(bounded.bytes(),
                   "id bound " + std::to_string(bound) + " does not fit");
  }
}

TEST_F(ExecutableTest, RefusesBrokenInstructionStreams) {
  const std::vector<uint8_t> valid = kernel_spirv("add_one");
  ASSERT_FALSE(valid.empty());

  // Cut off after the first word of OpFunction (five words long).
  SpirvModule cut(valid);
  const size_t function = cut.find_one(kOpFunction);
  ASSERT_NE(function, 0u);
  cut.words().resize(function + 1);
  expect_refused(cut.bytes(), "instruction at word " +
                                  std::to_string(function) +
                                  " (opcode 54) runs past the end");

  // An instruction that claims more words than the module has.
  SpirvModule overlong(valid);
  const size_t entry = overlong.find_one(kOpEntryPoint);
  ASSERT_NE(entry, 0u);
  overlong.words()[entry] = 0xFFFF0000u | kOpEntryPoint;
  expect_refused(overlong.bytes(), "instruction at word " +
                                       std::to_string(entry) +
                                       " (opcode 15) runs past the end");

  // A word count of 0 would never advance.
  SpirvModule empty(valid);
  const size_t end = empty.find_one(kOpFunctionEnd);
  ASSERT_NE(end, 0u);
  empty.words()[end] = kOpFunctionEnd;
  expect_refused(empty.bytes(), "instruction at word " + std::to_string(end) +
                                    " has length 0");

  SpirvModule unended(valid);
  unended.remove(unended.find_one(kOpFunctionEnd));
  expect_refused(unended.bytes(), "has no OpFunctionEnd");

  // A decoration of an id at the module's bound.
  SpirvModule stray(valid);
  const size_t decoration = stray.find_decoration(kDecorationBinding, 0);
  ASSERT_NE(decoration, 0u);
  stray.words()[decoration + 1] = stray.words()[3];
  expect_refused(stray.bytes(), "decoration at word " +
                                    std::to_string(decoration) +
                                    " names no valid id");
}

// Appends |instruction| at the end of |module|, after its last function.
void append(SpirvModule* module, const std::vector<uint32_t>& instruction) {
  module->words().insert(module->words().end(), instruction.begin(),
                         instruction.end());
}

// Returns a fresh id of |module| (raising its bound).
uint32_t new_id(SpirvModule* module) { return module->words()[3]++; }

TEST_F(ExecutableTest, RefusesInstructionsShorterThanTheirOperands) {
  // Each module ends with an instruction one word shorter than its opcode
  // requires, whose missing operand the reader needs: reading it would
  // read past the module.
  const std::vector<uint8_t> valid = kernel_spirv("add_one");
  ASSERT_FALSE(valid.empty());
  constexpr uint32_t kOpTypeInt = 21, kOpTypeArray = 28, kOpTypeStruct = 30,
                     kOpTypePointer = 32, kOpConstant = 43, kOpVariable = 59,
                     kUniform = 2, kStorageBuffer = 12;
  // add_one's 32-bit uint type, its push-constant struct (the one decorated
  // Block) and the pointer type of its storage buffer (a Uniform pointer to
  // the struct decorated BufferBlock).
  const SpirvModule original(valid);
  const std::vector<uint32_t>& words = original.words();
  const size_t uint_type = original.find_one(kOpTypeInt, [&](size_t at) {
    return words[at + 2] == 32 && words[at + 3] == 0;
  });
  const size_t block = original.find_one(kOpDecorate, [&](size_t at) {
    return words[at + 2] == kDecorationBlock;
  });
  const size_t buffer_block = original.find_one(kOpDecorate, [&](size_t at) {
    return words[at + 2] == kDecorationBufferBlock;
  });
  ASSERT_TRUE(uint_type != 0 && block != 0 && buffer_block != 0);
  const uint32_t uint_id = words[uint_type + 1];
  const uint32_t push_struct_id = words[block + 1];
  const size_t buffer_pointer =
      original.find_one(kOpTypePointer, [&](size_t at) {
        return words[at + 2] == kUniform &&
               words[at + 3] == words[buffer_block + 1];
      });
  ASSERT_NE(buffer_pointer, 0u);
  const uint32_t buffer_pointer_id = words[buffer_pointer + 1];

  // A global OpVariable without its storage class.
  SpirvModule variable(valid);
  size_t at = variable.words().size();
  append(&variable,
         {3u << 16 | kOpVariable, buffer_pointer_id, new_id(&variable)});
  expect_refused(variable.bytes(),
                 "opcode 59 at word " + std::to_string(at) + " is too short");

  // An OpTypePointer without the type it points to.
  SpirvModule pointer(valid);
  const uint32_t pointer_id = new_id(&pointer);
  append(&pointer, {4u << 16 | kOpVariable, pointer_id, new_id(&pointer),
                    kStorageBuffer});
  at = pointer.words().size();
  append(&pointer, {3u << 16 | kOpTypePointer, pointer_id, kStorageBuffer});
  expect_refused(pointer.bytes(),
                 "opcode 32 at word " + std::to_string(at) + " is too short");

  // A push-constant array whose length is an OpConstant without its value.
  SpirvModule constant(valid);
  const uint32_t array_id = new_id(&constant), length_id = new_id(&constant);
  append(&constant, {4u << 16 | kOpTypeArray, array_id, uint_id, length_id});
  at = constant.words().size();
  append(&constant, {3u << 16 | kOpConstant, uint_id, length_id});
  const size_t push_struct =
      constant.find_one(kOpTypeStruct, [&](size_t where) {
        return constant.words()[where + 1] == push_struct_id;
      });
  ASSERT_NE(push_struct, 0u);
  constant.words()[push_struct + 2] = array_id;
  expect_refused(constant.bytes(),
                 "opcode 43 at word " + std::to_string(at) + " is too short");
}

TEST_F(ExecutableTest, RefusesModulesWithoutAUsableEntryPoint) {
  const std::vector<uint8_t> valid = kernel_spirv("add_one");
  ASSERT_FALSE(valid.empty());

  SpirvModule vertex(valid);
  const size_t entry = vertex.find_one(kOpEntryPoint);
  ASSERT_NE(entry, 0u);
  vertex.words()[entry + 1] = kExecutionModelVertex;
  expect_refused(vertex.bytes(), "the module has no GLCompute entry point");

  // The entry point names the void type instead of its function.
  SpirvModule typed(valid);
  const size_t void_type = typed.find_one(kOpTypeVoid);
  ASSERT_NE(void_type, 0u);
  typed.words()[entry + 2] = typed.words()[void_type + 1];
  expect_refused(typed.bytes(), "entry point 'add_one' names no function");

  SpirvModule twice(valid);
  twice.insert(
      entry, SpirvModule::entry_point(5, twice.entry_function(entry), "add_one",
                                      twice.entry_interface(entry)));
  expect_refused(twice.bytes(),
                 "two GLCompute entry points are named 'add_one'");

  SpirvModule long_name(valid);
  const std::vector<uint32_t> interface = long_name.entry_interface(entry);
  const uint32_t function_id = long_name.entry_function(entry);
  long_name.remove(entry);
  long_name.insert(
      entry, SpirvModule::entry_point(5, function_id, std::string(200, 'k'),
                                      interface));
  expect_refused(long_name.bytes(),
                 "entry point name of 200 bytes exceeds 127");
}

TEST_F(ExecutableTest, RefusesBindingsHaloCannotBind) {
  // multiply_add binds storage buffers 0..3 of set 0.
  const std::vector<uint8_t> valid = kernel_spirv("multiply_add");
  ASSERT_FALSE(valid.empty());

  SpirvModule gap(valid);
  gap.words()[gap.find_decoration(kDecorationBinding, 3) + 3] = 5;
  expect_refused(gap.bytes(), "needs bindings 0..3 without gaps or repeats");

  SpirvModule repeat(valid);
  repeat.words()[repeat.find_decoration(kDecorationBinding, 1) + 3] = 0;
  expect_refused(repeat.bytes(), "needs bindings 0..3 without gaps or repeats");

  SpirvModule unbound(valid);
  unbound.remove(unbound.find_decoration(kDecorationBinding, 2));
  expect_refused(unbound.bytes(), "has no Binding");

  // Binding 2's variable moves to descriptor set 1.
  SpirvModule second_set(valid);
  const uint32_t variable =
      second_set.words()[second_set.find_decoration(kDecorationBinding, 2) + 1];
  const size_t set = second_set.find_one(kOpDecorate, [&](size_t at) {
    return second_set.words()[at + 1] == variable &&
           second_set.words()[at + 2] == kDecorationDescriptorSet;
  });
  ASSERT_NE(set, 0u);
  second_set.words()[set + 3] = 1;
  expect_refused(second_set.bytes(), "is in descriptor set 1; halo uses set 0");

  // A Block (not BufferBlock) struct in the Uniform storage class is a
  // uniform buffer, which halo does not bind.
  SpirvModule uniform(valid);
  const std::vector<size_t> blocks = uniform.find(kOpDecorate, [&](size_t at) {
    return uniform.words()[at + 2] == kDecorationBufferBlock;
  });
  ASSERT_EQ(blocks.size(), 4u);
  uniform.words()[blocks[1] + 2] = kDecorationBlock;
  expect_refused(uniform.bytes(), "uses a uniform buffer");
}

TEST_F(ExecutableTest, RefusesMoreConstantsThanTheDeviceTakes) {
  // The constants kernel takes five 32-bit constants at offsets 0..16;
  // moving the last to 4096 makes a 4,100-byte block, more than the plugin
  // records whatever the device allows.
  SpirvModule module(kernel_spirv("constants"));
  const size_t offset = module.find_one(kOpMemberDecorate, [&](size_t at) {
    return module.words()[at + 2] == 4 &&
           module.words()[at + 3] == kDecorationOffset;
  });
  ASSERT_NE(offset, 0u);
  module.words()[offset + 4] = 4096;
  ExecutablePtr executable;
  Status status(create_executable(module.bytes(), &executable));
  expect_status(status, HALO_STATUS_INVALID_ARGUMENT,
                {"halo_executable_create: params->data's entry point "
                 "'constants' takes 4100 bytes of constants, above the "
                 "device's max_constant_size"});
  EXPECT_EQ(executable, nullptr);
}

TEST_F(ExecutableTest, RefusesDeeplyNestedConstantsWithTheReason) {
  // Four members a level, fourteen levels: the plugin reflects the 1 GiB
  // block at once, and the device refuses that many constants.
  ExecutablePtr executable;
  Status big(create_executable(
      module_bytes(nested_push_constant_module(4, 14)), &executable));
  expect_status(big, HALO_STATUS_INVALID_ARGUMENT,
                {"halo_executable_create: params->data's entry point 'main' "
                 "takes 1073741824 bytes of constants, above the device's "
                 "max_constant_size"});
  EXPECT_EQ(executable, nullptr);
  expect_refused(module_bytes(nested_push_constant_module(1, 17)),
                 "push constant block 24 nests structs, arrays, vectors or "
                 "matrices more than 16 levels deep (halo's limit)");
}

TEST_F(ExecutableTest, EntryPointsShareOneModule) {
  // A second name for add_one's function: each name gets its own pipeline.
  SpirvModule module(kernel_spirv("add_one"));
  const size_t entry = module.find_one(kOpEntryPoint);
  ASSERT_NE(entry, 0u);
  module.insert(
      entry + module.word_count(entry),
      SpirvModule::entry_point(5, module.entry_function(entry), "add_one_again",
                               module.entry_interface(entry)));
  ExecutablePtr executable;
  HALO_ASSERT_OK(create_executable(module.bytes(), &executable));
  uint32_t count = 0;
  HALO_ASSERT_OK(halo_executable_entry_point_count(executable.get(), &count));
  ASSERT_EQ(count, 2u);
  const char* names[] = {"add_one", "add_one_again"};
  for (uint32_t i = 0; i < 2; ++i) {
    halo_entry_point_info_t info = {};
    info.struct_size = sizeof(info);
    HALO_ASSERT_OK(
        halo_executable_query_entry_point(executable.get(), i, &info));
    EXPECT_STREQ(info.name, names[i]);
    EXPECT_EQ(info.binding_count, 1u);
    EXPECT_EQ(info.constant_size, 4u);
    // LocalSize names the function, which both entry points share.
    EXPECT_EQ(info.workgroup_size[0], 64u);
    EXPECT_EQ(info.workgroup_size[1], 1u);
    EXPECT_EQ(info.workgroup_size[2], 1u);
    uint32_t ordinal = 99;
    HALO_ASSERT_OK(halo_executable_lookup_entry_point(executable.get(),
                                                      names[i], &ordinal));
    EXPECT_EQ(ordinal, i);
  }
  uint32_t ordinal = 99;
  Status missing(halo_executable_lookup_entry_point(executable.get(), "add_two",
                                                    &ordinal));
  expect_status(missing, HALO_STATUS_NOT_FOUND,
                {"halo_executable_lookup_entry_point", "'add_two'"});
  EXPECT_EQ(ordinal, 99u);
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  Status past(halo_executable_query_entry_point(executable.get(), 2, &info));
  expect_status(past, HALO_STATUS_OUT_OF_RANGE, {"ordinal 2"});

  BufferPtr buffer = make_buffer(100 * sizeof(uint32_t));
  std::vector<uint32_t> values(100);
  for (uint32_t i = 0; i < 100; ++i) values[i] = i * 7;
  write(buffer.get(), values);
  add_one(executable.get(), 1, buffer.get(), 100);
  add_one(executable.get(), 0, buffer.get(), 100);
  for (uint32_t& value : values) value += 2;
  EXPECT_EQ(read(buffer.get(), 100), values);
}

TEST_F(ExecutableTest, BuildsFromUnalignedBytes) {
  // Vulkan reads code as 32-bit words; bytes one past an aligned address
  // must still build, and run.
  const std::vector<uint8_t> valid = kernel_spirv("add_one");
  ASSERT_FALSE(valid.empty());
  std::vector<uint8_t> shifted(valid.size() + 1);
  std::copy(valid.begin(), valid.end(), shifted.begin() + 1);
  ExecutablePtr executable;
  HALO_ASSERT_OK(
      create_executable(shifted.data() + 1, valid.size(), &executable));
  BufferPtr buffer = make_buffer(64 * sizeof(uint32_t));
  write(buffer.get(), std::vector<uint32_t>(64, 41));
  add_one(executable.get(), 0, buffer.get(), 64);
  EXPECT_EQ(read(buffer.get(), 64), std::vector<uint32_t>(64, 42));
}

}  // namespace
}  // namespace halo_vulkan_test
