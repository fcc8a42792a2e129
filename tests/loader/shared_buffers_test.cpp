// Buffers named by another device's commands (external.h): libhalo imports
// an EXPORTABLE buffer into the command buffer's device, once per pair, and
// the commands read and write the buffer's own memory. Two devices of the
// cpu plugin (HOST_ALLOCATION both ways) are the pair; what the devices
// write is read back through mappings of the other side.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "halo/halo.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

constexpr halo_buffer_usage_t kAnyUse =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
constexpr std::uint64_t kWords = 1024;
constexpr std::uint64_t kBytes = kWords * sizeof(std::uint32_t);

class SharedBuffersTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    ASSERT_EQ(registry_.driver_count(), 1u) << describe(registry_.plugins());
    owner_ = registry_.create_device(0);
    user_ = registry_.create_device(0);
    memory_type_ = halo::mappable_memory_type(owner_.capabilities());
    ASSERT_NE(memory_type_, 0u);
  }

  halo::Buffer buffer(const halo::Device& device, halo_buffer_flags_t flags = 0,
                      halo_buffer_usage_t usage = kAnyUse) const {
    return device.allocate_buffer(kBytes, usage, memory_type_, flags);
  }

  // |buffer|'s words 0, 1, 2, ...
  static void write_indices(const halo::Buffer& buffer) {
    const halo::Mapping<std::uint32_t> words = buffer.map<std::uint32_t>();
    std::iota(words.begin(), words.end(), 0u);
    words.flush();
  }

  static std::vector<std::uint32_t> words_of(const halo::Buffer& buffer) {
    const halo::Mapping<const std::uint32_t> words = buffer.map<const std::uint32_t>();
    words.invalidate();
    return std::vector<std::uint32_t>(words.begin(), words.end());
  }

  // Submits |commands| to |device| and waits for them.
  static void run(const halo::Device& device, const halo::CommandBuffer& commands) {
    const halo::Semaphore done = device.create_semaphore();
    halo::Submission().commands(commands).signal(done, 1).submit(device);
    ASSERT_TRUE(done.wait(1));
  }

  static std::vector<std::uint32_t> indices() {
    std::vector<std::uint32_t> values(kWords);
    std::iota(values.begin(), values.end(), 0u);
    return values;
  }

  halo::Registry registry_;
  // Two devices of one plugin: |owner_| allocates, |user_| records.
  halo::Device owner_;
  halo::Device user_;
  halo_memory_type_t memory_type_ = 0;
};

TEST_F(SharedBuffersTest, AnotherDevicesCommandsUseAnExportableBufferInPlace) {
  const halo::Buffer shared = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE);
  write_indices(shared);
  const halo::Buffer copy = buffer(user_);
  const halo::CommandBuffer commands = user_.create_command_buffer();
  commands.begin()
      .copy(shared, 0, copy, 0, kBytes)
      .barrier()
      .fill(shared, kBytes / 2, kBytes / 2, std::uint32_t{0xA5A5A5A5u})
      .update(shared, 0, std::vector<std::uint32_t>{7, 8})
      .end();
  run(user_, commands);

  EXPECT_EQ(words_of(copy), indices());
  std::vector<std::uint32_t> expected = indices();
  expected[0] = 7;
  expected[1] = 8;
  std::fill(expected.begin() + kWords / 2, expected.end(), 0xA5A5A5A5u);
  EXPECT_EQ(words_of(shared), expected);
}

TEST_F(SharedBuffersTest, EveryOtherDeviceGetsItsOwnImportAndTheOwnerItsBuffer) {
  const halo::Buffer shared = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE);
  write_indices(shared);
  const halo::Device third = registry_.create_device(0);
  for (const halo::Device* device :
       std::initializer_list<const halo::Device*>{&user_, &third, &owner_, &user_}) {
    const halo::Buffer copy = buffer(*device);
    const halo::CommandBuffer commands = device->create_command_buffer();
    commands.begin().copy(shared, 0, copy, 0, kBytes).end();
    run(*device, commands);
    EXPECT_EQ(words_of(copy), indices());
  }
}

TEST_F(SharedBuffersTest, ABufferAllocatedWithoutTheFlagIsStillRefused) {
  const halo::Buffer own = buffer(owner_);
  const halo::Buffer target = buffer(user_);
  const halo::CommandBuffer commands = user_.create_command_buffer();
  commands.begin();
  const halo::StatusPtr status(
      halo_command_buffer_copy(commands.get(), own.get(), 0, target.get(), 0, kBytes));
  EXPECT_EQ(halo::status_code(status.get()), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(halo::status_message(status.get()).find("another device"), std::string::npos)
      << halo::status_message(status.get());
}

TEST_F(SharedBuffersTest, TheImportHasTheBuffersUsage) {
  const halo::Buffer shared = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE,
                                     HALO_BUFFER_USAGE_TRANSFER_TARGET | HALO_BUFFER_USAGE_MAPPING);
  const halo::Buffer target = buffer(user_);
  const halo::CommandBuffer commands = user_.create_command_buffer();
  commands.begin();
  const halo::StatusPtr status(
      halo_command_buffer_copy(commands.get(), shared.get(), 0, target.get(), 0, kBytes));
  EXPECT_EQ(halo::status_code(status.get()), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(halo::status_message(status.get()).find("TRANSFER_SOURCE"), std::string::npos)
      << halo::status_message(status.get());
}

// The application lets go of the buffer as soon as the command is recorded
// (command_buffer.h); its memory, which the import names, must stay.
TEST_F(SharedBuffersTest, TheCommandBufferKeepsTheBufferAlive) {
  halo::Buffer shared = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE);
  write_indices(shared);
  const halo::Buffer copy = buffer(user_);
  const halo::CommandBuffer commands =
      user_.create_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  commands.begin().copy(shared, 0, copy, 0, kBytes).end();
  shared = halo::Buffer();
  run(user_, commands);
  EXPECT_EQ(words_of(copy), indices());
  // Again, after more allocations have had the chance to reuse its memory.
  const halo::Buffer other = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE);
  run(user_, commands);
  EXPECT_EQ(words_of(copy), indices());
}

// The CTS's fill_index kernel (cts/testdata/kernels): the user's dispatch
// writes into the owner's buffer through a binding.
TEST_F(SharedBuffersTest, DispatchBindingsAreShared) {
  const std::filesystem::path kernel =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() /
      "../share/halo/cts/testdata/kernels/fill_index.cpu-so";
  if (!std::filesystem::is_regular_file(kernel)) {
    GTEST_SKIP() << kernel << " is not built (target halo_cts_kernels)";
  }
  const halo::Executable executable = user_.load_executable("cpu-so", kernel.string());
  struct FillIndexConstants {
    std::uint32_t base;
    std::uint32_t n;
  };
  const halo::Buffer shared = buffer(owner_, HALO_BUFFER_FLAG_EXPORTABLE);
  const std::vector<halo_buffer_binding_t> bindings = {halo::bind(shared)};
  const halo::CommandBuffer commands = user_.create_command_buffer();
  commands.begin()
      .dispatch(executable, executable.lookup("fill_index"), {kWords / 64}, bindings,
                FillIndexConstants{1000, kWords})
      .end();
  run(user_, commands);
  const std::vector<std::uint32_t> written = words_of(shared);
  for (std::uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(written[i], 1000 + i) << i;
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
