// The C++ layer's resources, halo.hpp, against the cpu plugin: typed
// mappings that unmap when they go, a command buffer recorded by chaining,
// executables and their entry points, submissions of semaphores and fences,
// multi-semaphore waits, timepoints, external handles, devices that know
// their plugin and index, and the status and object helpers. Values written
// by the device are read back through typed mappings; refusals are checked
// by code. Nothing sleeps: a dispatch that must stay running waits for a
// flag that the test sets.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <iterator>
#include <numeric>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "halo/halo.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

// A Mapping is a contiguous range, so std::span takes it, but not a
// temporary one, whose mapping ends with the full expression.
static_assert(std::ranges::contiguous_range<halo::Mapping<float>>);
static_assert(std::is_constructible_v<std::span<float>, halo::Mapping<float>&>);
static_assert(!std::is_constructible_v<std::span<float>, halo::Mapping<float>&&>);
static_assert(!std::is_copy_constructible_v<halo::Mapping<float>>);
static_assert(!std::is_copy_constructible_v<halo::Timepoint>);

// Runs |call| and expects it to throw a halo::Error with |code|.
void expect_error(const std::function<void()>& call, halo_status_code_t code) {
  try {
    call();
    ADD_FAILURE() << "no error; expected " << halo::code_name(code);
  } catch (const halo::Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
  }
}

TEST(HaloHppResourcesHelpersTest, StatusHelpersWrapTheCApi) {
  const halo::StatusPtr status = halo::make_status(HALO_STATUS_NOT_FOUND, "no kernel");
  EXPECT_EQ(halo::status_code(status.get()), HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(halo::status_message(status.get()), "no kernel");
  const halo::StatusPtr copy = halo::clone_status(status.get());
  EXPECT_NE(copy.get(), status.get());
  EXPECT_EQ(halo::status_message(copy.get()), "no kernel");
  halo::StatusPtr annotated =
      halo::annotate_status(halo::clone_status(status.get()), "loading saxpy");
  EXPECT_EQ(halo::status_code(annotated.get()), HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(halo::status_message(annotated.get()), "loading saxpy: no kernel");
  EXPECT_TRUE(halo::status_from_code(HALO_STATUS_OK) == nullptr);
  EXPECT_EQ(halo::status_code(halo::status_from_code(HALO_STATUS_ABORTED).get()),
            HALO_STATUS_ABORTED);
  EXPECT_EQ(halo::code_description(HALO_STATUS_INVALID_ARGUMENT), "an argument is invalid");

  const halo::Error error(HALO_STATUS_DATA_LOSS, "lost");
  const halo::StatusPtr back = error.to_status();
  EXPECT_EQ(halo::status_code(back.get()), HALO_STATUS_DATA_LOSS);
  EXPECT_EQ(halo::status_message(back.get()), "lost");
  EXPECT_TRUE(halo::Error(HALO_STATUS_OK, "").to_status() == nullptr);
}

TEST(HaloHppResourcesHelpersTest, DeadlinesSaturateAndCountFromNow) {
  using namespace std::chrono_literals;
  EXPECT_EQ(halo::deadline_after(0s), HALO_DEADLINE_INFINITE_PAST);
  EXPECT_EQ(halo::deadline_after(-5ms), HALO_DEADLINE_INFINITE_PAST);
  EXPECT_EQ(halo::deadline_after(std::chrono::hours::max()), HALO_DEADLINE_INFINITE_FUTURE);
  EXPECT_EQ(halo::deadline_after(std::chrono::nanoseconds::max()),
            HALO_DEADLINE_INFINITE_FUTURE);
  // Bounds from the monotonic clock itself, read before and after: no
  // assumption about how long the call takes.
  const halo_time_ns_t before = halo::now();
  const halo_time_ns_t deadline = halo::deadline_after(1h);
  const halo_time_ns_t after = halo::now();
  constexpr halo_time_ns_t kHour = 3600LL * 1000 * 1000 * 1000;
  EXPECT_GE(deadline, before + kHour);
  EXPECT_LE(deadline, after + kHour);
  EXPECT_GE(halo::deadline_after(std::chrono::duration<double>(1.5)), before + 1500000000);
}

TEST(HaloHppResourcesHelpersTest, CapabilityHelpersReadFormatsAndMemoryTypes) {
  halo_device_capabilities_t caps{};
  const char list[] = "spirv, cpu-so,opencl-c";
  std::copy(std::begin(list), std::end(list), caps.executable_formats);
  EXPECT_EQ(halo::executable_formats(caps),
            (std::vector<std::string>{"spirv", "cpu-so", "opencl-c"}));
  caps.memory_types = HALO_MEMORY_TYPE_DEVICE_LOCAL;
  EXPECT_EQ(halo::mappable_memory_type(caps), 0u);
  caps.memory_types |= HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;
  EXPECT_EQ(halo::mappable_memory_type(caps),
            HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT);
}

TEST(HaloHppResourcesHelpersTest, ReadFileThrowsNotFound) {
  expect_error([] { (void)halo::read_file("/nonexistent/halo/kernel.cpu-so"); },
               HALO_STATUS_NOT_FOUND);
}

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

// Every usage bit, so a test buffer may take any command.
constexpr halo_buffer_usage_t kAnyUse =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;

class HaloHppResourcesTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    ASSERT_EQ(registry_.driver_count(), 1u) << describe(registry_.plugins());
    device_ = registry_.create_device(0);
    caps_ = device_.capabilities();
    memory_type_ = halo::mappable_memory_type(caps_);
    ASSERT_NE(memory_type_, 0u);
  }

  halo::Buffer buffer(std::uint64_t size) const {
    return device_.allocate_buffer(size, kAnyUse, memory_type_);
  }

  // Submits |commands| to signal a new semaphore, and waits for it.
  void run(const halo::CommandBuffer& commands) const {
    const halo::Semaphore done = device_.create_semaphore();
    halo::Submission().commands(commands).signal(done, 1).submit(device_);
    EXPECT_TRUE(done.wait(1));
  }

  halo::Registry registry_;
  halo::Device device_;
  halo_device_capabilities_t caps_{};
  halo_memory_type_t memory_type_ = 0;
};

TEST_F(HaloHppResourcesTest, DeviceKnowsItsPluginAndIndex) {
  EXPECT_EQ(device_.plugin(), "cpu");
  EXPECT_EQ(device_.index(), std::optional<std::size_t>(0));
  EXPECT_EQ(registry_.device_count(), registry_.devices().size());

  const halo::Driver driver = registry_.find_driver("cpu");
  ASSERT_GE(driver.device_count(), 1u);
  const halo::Device from_driver = driver.create_device(driver.devices().at(0).device_id);
  EXPECT_EQ(from_driver.plugin(), "cpu");
  EXPECT_FALSE(from_driver.index().has_value());

  halo::Device raw(halo::retain_ref, device_.get());
  EXPECT_EQ(raw, device_);
  EXPECT_EQ(raw.plugin(), "");
  EXPECT_FALSE(raw.index().has_value());

  halo::Device copy = device_;
  EXPECT_EQ(copy.plugin(), "cpu");
  EXPECT_EQ(copy.index(), std::optional<std::size_t>(0));
  copy.swap(raw);
  EXPECT_EQ(raw.plugin(), "cpu");
  EXPECT_EQ(copy.plugin(), "");
  raw.reset();
  EXPECT_FALSE(raw);
  EXPECT_EQ(raw.plugin(), "");
  EXPECT_FALSE(raw.index().has_value());

  expect_error([&] { (void)registry_.create_device(registry_.device_count()); },
               HALO_STATUS_OUT_OF_RANGE);
}

TEST_F(HaloHppResourcesTest, MappingIsATypedSpanThatUnmapsOnScopeExit) {
  const halo::Buffer data = buffer(64);
  EXPECT_EQ(data.size(), 64u);
  {
    halo::Mapping<std::uint32_t> words = data.map<std::uint32_t>();
    ASSERT_EQ(words.size(), 16u);
    EXPECT_EQ(words.size_bytes(), 64u);
    EXPECT_EQ(words.offset(), 0u);
    std::iota(words.begin(), words.end(), 100u);
    const std::span<std::uint32_t> span = words;
    EXPECT_EQ(span.data(), words.data());
    EXPECT_EQ(span[3], 103u);
    EXPECT_EQ(words.span().size(), 16u);
    words.flush();
  }
  // The mapping ended with its scope: its range is no longer a mapping.
  expect_error([&] { data.unmap_range(0, 64); }, HALO_STATUS_FAILED_PRECONDITION);

  halo::Mapping<const std::uint32_t> tail = data.map<const std::uint32_t>(48);
  ASSERT_EQ(tail.size(), 4u);
  tail.invalidate();
  EXPECT_EQ(tail[0], 112u);
  EXPECT_EQ(std::accumulate(tail.begin(), tail.end(), 0u), 112u + 113u + 114u + 115u);

  // Moving hands the mapping over; the moved-from one unmaps nothing.
  halo::Mapping<const std::uint32_t> moved = std::move(tail);
  EXPECT_FALSE(tail);  // NOLINT(bugprone-use-after-move): moved-from is empty.
  EXPECT_EQ(tail.size(), 0u);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved[3], 115u);
  moved.unmap();
  EXPECT_FALSE(moved);
  expect_error([&] { data.unmap_range(48, 16); }, HALO_STATUS_FAILED_PRECONDITION);

  // A bare map_range is still there, paired with its unmap_range.
  const auto* bytes = static_cast<const std::uint8_t*>(data.map_range(4, 4));
  EXPECT_EQ(bytes[0], 101u);
  data.unmap_range(4, 4);
}

TEST_F(HaloHppResourcesTest, MapChecksRangeAndAlignment) {
  const halo::Buffer data = buffer(64);
  expect_error([&] { (void)data.map<std::uint32_t>(0, 17); }, HALO_STATUS_OUT_OF_RANGE);
  expect_error([&] { (void)data.map<std::uint32_t>(65); }, HALO_STATUS_OUT_OF_RANGE);
  expect_error([&] { (void)data.map<std::uint64_t>(0, HALO_WHOLE_BUFFER / 4); },
               HALO_STATUS_OUT_OF_RANGE);
  // Misaligned for the element type: refused, and the map it made is ended.
  expect_error([&] { (void)data.map<std::uint32_t>(2, 1); }, HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { data.unmap_range(2, 4); }, HALO_STATUS_FAILED_PRECONDITION);
  // The whole buffer from an offset is every whole element left.
  EXPECT_EQ(data.map<std::uint64_t>(40).size(), 3u);
  EXPECT_EQ(data.map<std::uint32_t>(64).size(), 0u);
}

TEST_F(HaloHppResourcesTest, FillUpdateCopyChainAndReadBack) {
  const halo::Buffer source = buffer(64);
  const halo::Buffer target = buffer(64);
  const std::array<std::uint32_t, 4> words = {1, 2, 3, 4};
  const halo::CommandBuffer commands = device_.create_command_buffer();
  commands.begin()
      .fill(source, 0, 32, std::uint32_t{0xA5A5A5A5u})
      .update(source, 32, words)
      .fill(source, 48, 16, std::uint16_t{0x1234})
      .barrier()
      .copy(source, 0, target, 0, 64)
      .fill(target, 60, HALO_WHOLE_BUFFER, std::uint8_t{0x7F})
      .end();
  run(commands);

  const halo::Mapping<const std::uint32_t> result = target.map<const std::uint32_t>();
  result.invalidate();
  ASSERT_EQ(result.size(), 16u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(result[i], 0xA5A5A5A5u) << i;
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(result[8 + i], words[i]) << i;
  for (std::size_t i = 12; i < 15; ++i) EXPECT_EQ(result[i], 0x12341234u) << i;
  EXPECT_EQ(result[15], 0x7F7F7F7Fu);
}

TEST_F(HaloHppResourcesTest, RecordingAndSubmissionRefusalsThrowTheirCodes) {
  const halo::Buffer data = buffer(64);
  const halo::Buffer source_only = device_.allocate_buffer(
      64, HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_MAPPING, memory_type_);
  const halo::CommandBuffer commands = device_.create_command_buffer();
  expect_error([&] { commands.fill(data, 0, 4, std::uint32_t{1}); },
               HALO_STATUS_FAILED_PRECONDITION);
  commands.begin();
  expect_error([&] { commands.begin(); }, HALO_STATUS_FAILED_PRECONDITION);
  expect_error([&] { commands.fill(data, 2, 4, std::uint32_t{1}); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { commands.fill(source_only, 0, 4, std::uint32_t{1}); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { commands.copy(data, 0, data, 32, HALO_WHOLE_BUFFER); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { commands.update(data, 60, std::array<std::uint32_t, 2>{}); },
               HALO_STATUS_OUT_OF_RANGE);
  // A refused command records nothing and leaves the recording open.
  commands.fill(data, 0, 64, std::uint32_t{9});
  expect_error([&] { halo::Submission().commands(commands).submit(device_); },
               HALO_STATUS_FAILED_PRECONDITION);
  commands.end();
  expect_error([&] { commands.end(); }, HALO_STATUS_FAILED_PRECONDITION);

  const halo::Semaphore done = device_.create_semaphore(5);
  // A signal at the payload is refused, and nothing is submitted: the
  // ONE_SHOT command buffer is not spent.
  expect_error([&] { halo::Submission().commands(commands).signal(done, 5).submit(device_); },
               HALO_STATUS_INVALID_ARGUMENT);
  // An affinity naming no queue of the device (the cpu device has one).
  ASSERT_EQ(caps_.queue_count, 1u);
  expect_error(
      [&] { halo::Submission().commands(commands).affinity(2).submit(device_); },
      HALO_STATUS_INVALID_ARGUMENT);
  halo::Submission().commands(commands).signal(done, 6).affinity(1).submit(device_);
  EXPECT_TRUE(done.wait(6));
  expect_error([&] { halo::Submission().commands(commands).submit(device_); },
               HALO_STATUS_FAILED_PRECONDITION);
  const halo::Mapping<const std::uint32_t> result = data.map<const std::uint32_t>();
  EXPECT_EQ(result[0], 9u);
  EXPECT_EQ(result[15], 9u);

  expect_error([&] { (void)device_.create_command_buffer(3); }, HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { (void)device_.allocate_buffer(0, kAnyUse, memory_type_); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { (void)device_.allocate_buffer(64, kAnyUse, 0); },
               HALO_STATUS_INVALID_ARGUMENT);
}

TEST_F(HaloHppResourcesTest, ReusableCommandBufferSubmitsAgain) {
  const halo::Buffer counter = buffer(64);
  const halo::Buffer doubled = buffer(64);
  const halo::CommandBuffer commands =
      device_.create_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  commands.begin().copy(counter, 0, doubled, 0, 32).copy(counter, 0, doubled, 32, 32).end();
  const halo::Semaphore done = device_.create_semaphore();
  for (std::uint32_t round = 1; round <= 2; ++round) {
    {
      halo::Mapping<std::uint32_t> words = counter.map<std::uint32_t>(0, 8);
      std::fill(words.begin(), words.end(), round * 10);
    }
    halo::Submission().commands(commands).signal(done, round).submit(device_);
    ASSERT_TRUE(done.wait(round));
    const halo::Mapping<const std::uint32_t> result = doubled.map<const std::uint32_t>();
    EXPECT_EQ(result[0], round * 10);
    EXPECT_EQ(result[15], round * 10);
  }
}

#if defined(HALO_TEST_WAIT_FOR_FLAG_KERNEL)
TEST_F(HaloHppResourcesTest, ExecutableLooksUpItsEntryPoints) {
  const halo::Executable executable =
      device_.load_executable("cpu-so", HALO_TEST_WAIT_FOR_FLAG_KERNEL);
  EXPECT_EQ(executable.entry_point_count(), 1u);
  EXPECT_EQ(executable.lookup("wait_for_flag"), 0u);
  const halo_entry_point_info_t info = executable.entry_point(0);
  EXPECT_EQ(halo::to_string(info.name), "wait_for_flag");
  EXPECT_EQ(info.binding_count, 1u);
  EXPECT_EQ(info.constant_size, 0u);
  EXPECT_EQ(halo::to_string(executable.entry_point("wait_for_flag").name), "wait_for_flag");
  expect_error([&] { (void)executable.lookup("missing"); }, HALO_STATUS_NOT_FOUND);
  expect_error([&] { (void)executable.entry_point(1); }, HALO_STATUS_OUT_OF_RANGE);

  const std::vector<std::byte> bytes = halo::read_file(HALO_TEST_WAIT_FOR_FLAG_KERNEL);
  expect_error([&] { (void)device_.create_executable("no-such-format", bytes); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { (void)device_.create_executable("cpu-so", std::string("not an ELF")); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { (void)device_.load_executable("cpu-so", "/nonexistent/kernel.cpu-so"); },
               HALO_STATUS_NOT_FOUND);
}

// The dispatch holds its submission until the host sets the flag it binds,
// so the submission's signal is unreached until then whatever the timing.
// No command reads the flag after the kernel: the kernel is built without
// the sanitizers, so ThreadSanitizer would not see its acquire of the flag
// and would take such a read for a race with the host's store.
TEST_F(HaloHppResourcesTest, DispatchHoldsItsSubmissionUntilTheHostSetsTheFlag) {
  const halo::Executable executable =
      device_.load_executable("cpu-so", HALO_TEST_WAIT_FOR_FLAG_KERNEL);
  const halo::Buffer flag = buffer(64);
  const halo::Buffer out = buffer(64);
  halo::Mapping<std::uint32_t> flag_words = flag.map<std::uint32_t>();
  flag_words[0] = 0;
  const halo::CommandBuffer commands = device_.create_command_buffer();
  commands.begin()
      .fill(out, 0, 64, std::uint32_t{0})
      .dispatch(executable, executable.lookup("wait_for_flag"), {1}, {halo::bind(flag, 0, 64)})
      .fill(out, 0, 4, std::uint32_t{7})
      .end();
  const halo::Semaphore done = device_.create_semaphore();
  halo::Submission().commands(commands).signal(done, 1).submit(device_);
  // Only EXPECTs until the flag is set: a return here would leave the
  // kernel spinning.
  EXPECT_FALSE(done.wait(1, halo::infinite_past));
  std::atomic_ref<std::uint32_t>(flag_words[0]).store(1, std::memory_order_release);
  EXPECT_TRUE(done.wait(1));
  flag_words.unmap();
  // The two fills ran in recording order, around the dispatch.
  const halo::Mapping<const std::uint32_t> result = out.map<const std::uint32_t>();
  EXPECT_EQ(result[0], 7u);
  EXPECT_EQ(result[1], 0u);
}
#endif  // HALO_TEST_WAIT_FOR_FLAG_KERNEL

// The CTS's fill_index kernel (cts/testdata/kernels), where halo-saxpy finds
// its kernels: beside this program's folder in the build tree. It writes
// values from its constants, so a dispatch's bindings, constants and
// workgroup count all show in what it writes.
TEST_F(HaloHppResourcesTest, DispatchWritesFromItsConstants) {
  const std::filesystem::path kernel =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() /
      "../share/halo/cts/testdata/kernels/fill_index.cpu-so";
  if (!std::filesystem::is_regular_file(kernel)) {
    GTEST_SKIP() << kernel << " is not built (target halo_cts_kernels)";
  }
  const halo::Executable executable = device_.load_executable("cpu-so", kernel.string());
  struct FillIndexConstants {
    std::uint32_t base;
    std::uint32_t n;
  };
  const halo_entry_point_info_t info = executable.entry_point("fill_index");
  ASSERT_EQ(info.constant_size, sizeof(FillIndexConstants));

  const halo::Buffer out = buffer(128 * sizeof(std::uint32_t));
  const std::vector<halo_buffer_binding_t> bindings = {halo::bind(out)};
  const halo::CommandBuffer commands = device_.create_command_buffer();
  commands.begin()
      .fill(out, 0, HALO_WHOLE_BUFFER, std::uint32_t{0xFFFFFFFFu})
      // 64 elements a workgroup: 2 workgroups cover n = 100.
      .dispatch(executable, executable.lookup("fill_index"), {2}, bindings,
                FillIndexConstants{1000, 100})
      .end();
  run(commands);

  const halo::Mapping<const std::uint32_t> result = out.map<const std::uint32_t>();
  result.invalidate();
  ASSERT_EQ(result.size(), 128u);
  for (std::uint32_t i = 0; i < 100; ++i) EXPECT_EQ(result[i], 1000 + i) << i;
  for (std::uint32_t i = 100; i < 128; ++i) EXPECT_EQ(result[i], 0xFFFFFFFFu) << i;

  expect_error(
      [&] { commands.dispatch(executable, 0, {1}, bindings, std::uint64_t{0}); },
      HALO_STATUS_FAILED_PRECONDITION);
  const halo::CommandBuffer wrong = device_.create_command_buffer();
  wrong.begin();
  // Constants of the wrong size, and bindings of the wrong count.
  expect_error([&] { wrong.dispatch(executable, 0, {1}, bindings, std::uint32_t{0}); },
               HALO_STATUS_INVALID_ARGUMENT);
  expect_error([&] { wrong.dispatch(executable, 0, {1}, {}, FillIndexConstants{0, 1}); },
               HALO_STATUS_INVALID_ARGUMENT);
}

TEST_F(HaloHppResourcesTest, SubmissionWaitsAndSignalsSemaphoresAndFences) {
  const halo::Semaphore go = device_.create_semaphore();
  const halo::Semaphore go_fence = device_.create_semaphore();
  const halo::Semaphore done = device_.create_semaphore();
  const halo::Semaphore also_done = device_.create_semaphore();
  // A barrier (no command buffers) waiting on a pair and a fence, and
  // signalling a pair and a fence.
  halo::Submission()
      .wait(go, 1)
      .wait(halo::Fence::at(go_fence, 2))
      .signal(done, 3)
      .signal(halo::Fence::at(also_done, 4))
      .submit(device_);
  EXPECT_FALSE(halo::wait_any({{done, 3}, {also_done, 4}}, halo::infinite_past));
  go.signal(1);
  EXPECT_FALSE(halo::wait_any({{done, 3}, {also_done, 4}}, halo::infinite_past));
  go_fence.signal(2);
  EXPECT_TRUE(halo::wait_all({{done, 3}, {also_done, 4}}));
}

TEST_F(HaloHppResourcesTest, WaitAllAndWaitAny) {
  const halo::Semaphore a = device_.create_semaphore(0);
  const halo::Semaphore b = device_.create_semaphore(3);
  EXPECT_TRUE(halo::wait_all({}));
  EXPECT_TRUE(halo::wait_any({{a, 1}, {b, 3}}, halo::infinite_past));
  EXPECT_FALSE(halo::wait_all({{a, 1}, {b, 3}}, halo::infinite_past));
  a.signal(1);
  EXPECT_TRUE(halo::wait_all({{a, 1}, {b, 3}}, halo::infinite_past));

  // A failure comes first, in ANY mode too while another pair is reached.
  const halo::Semaphore failed = device_.create_semaphore();
  failed.fail(halo::make_status(HALO_STATUS_ABORTED, "stopped"));
  expect_error([&] { (void)halo::wait_any({{b, 3}, {failed, 1}}, halo::infinite_past); },
               HALO_STATUS_ABORTED);
  expect_error([&] { (void)failed.query(); }, HALO_STATUS_ABORTED);
}

TEST_F(HaloHppResourcesTest, TimepointRunsOnceAndCancelsOnDestruction) {
  const halo::Semaphore semaphore = device_.create_semaphore(5);

  // Reached already: the callback runs inline, in the constructor.
  int inline_calls = 0;
  halo::Timepoint reached(semaphore, 3, [&](halo::StatusPtr status) {
    EXPECT_TRUE(status == nullptr);
    ++inline_calls;
  });
  EXPECT_EQ(inline_calls, 1);
  EXPECT_TRUE(reached.done());
  EXPECT_FALSE(reached.cancel());

  // Pending, moved, then reached: the callback follows the move.
  std::promise<halo_status_code_t> reached_code;
  halo::Timepoint pending(semaphore, 7, [&](halo::StatusPtr status) {
    reached_code.set_value(halo::status_code(status.get()));
  });
  EXPECT_FALSE(pending.done());
  halo::Timepoint moved = std::move(pending);
  EXPECT_FALSE(pending);  // NOLINT(bugprone-use-after-move): moved-from is empty.
  semaphore.signal(7);
  EXPECT_EQ(reached_code.get_future().get(), HALO_STATUS_OK);
  EXPECT_FALSE(moved.cancel());

  // Destroyed before its value: the callback never runs.
  std::atomic<int> late_calls{0};
  {
    halo::Timepoint dropped(semaphore, 9, [&](halo::StatusPtr) { ++late_calls; });
  }
  halo::Timepoint cancelled(semaphore, 9, [&](halo::StatusPtr) { ++late_calls; });
  EXPECT_TRUE(cancelled.cancel());
  EXPECT_FALSE(cancelled.cancel());
  semaphore.signal(9);
  EXPECT_EQ(late_calls.load(), 0);
  EXPECT_FALSE(cancelled.done());

  // A failure reaches the callback with its status.
  std::promise<std::string> failure;
  halo::Timepoint failing(semaphore, 20, [&](halo::StatusPtr status) {
    failure.set_value(std::string(halo::code_name(halo::status_code(status.get()))) + ": " +
                      std::string(halo::status_message(status.get())));
  });
  semaphore.fail(HALO_STATUS_ABORTED, "stopped on purpose");
  EXPECT_EQ(failure.get_future().get(), "ABORTED: stopped on purpose");

  expect_error([&] { halo::Timepoint(semaphore, 1, nullptr); }, HALO_STATUS_INVALID_ARGUMENT);
  const halo::Semaphore fresh = device_.create_semaphore();
  int refused_calls = 0;
  expect_error(
      [&] {
        halo::Timepoint(fresh, HALO_SEMAPHORE_MAX_VALUE + 1, [&](halo::StatusPtr) {
          ++refused_calls;
        });
      },
      HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(refused_calls, 0);
}

TEST_F(HaloHppResourcesTest, ExternalHandlesExportAndImport) {
  ASSERT_NE(caps_.buffer_export_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, 0u);
  ASSERT_NE(caps_.buffer_import_types & HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, 0u);
  const std::uint64_t size = 4 * caps_.host_allocation_alignment;
  const halo::Buffer exported =
      device_.allocate_buffer(size, kAnyUse, memory_type_, HALO_BUFFER_FLAG_EXPORTABLE);
  const halo_external_handle_t handle =
      exported.export_handle(HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  EXPECT_EQ(handle.type, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  ASSERT_NE(handle.host_pointer, nullptr);
  ASSERT_GE(handle.size, size);
  const halo::Buffer imported =
      device_.import_buffer(handle, kAnyUse, HALO_MEMORY_TYPE_HOST_VISIBLE, size);
  EXPECT_EQ(imported.size(), size);
  {
    halo::Mapping<std::uint32_t> words = exported.map<std::uint32_t>();
    words[0] = 0xC0FFEEu;
  }
  EXPECT_EQ(imported.map<const std::uint32_t>(0, 1)[0], 0xC0FFEEu);

  // Without the flag the buffer does not export.
  expect_error([&] { (void)buffer(size).export_handle(HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION); },
               HALO_STATUS_FAILED_PRECONDITION);
  // The cpu device shares semaphores as host timelines, and as nothing else:
  // an OPAQUE_FD export and import are refused, and a refused import leaves
  // its fd with the caller.
  ASSERT_EQ(caps_.semaphore_export_types, HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD);
  halo::Semaphore original = device_.create_semaphore(3, HALO_SEMAPHORE_FLAG_EXPORTABLE);
  halo::Semaphore shared =
      device_.import_semaphore(original.export_handle(HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD));
  EXPECT_EQ(shared.query(), 3u);
  shared.signal(4);
  EXPECT_EQ(original.query(), 4u);
  expect_error([&] { (void)original.export_handle(HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD); },
               HALO_STATUS_UNIMPLEMENTED);
  int fds[2] = {-1, -1};
  ASSERT_EQ(pipe(fds), 0);
  halo_external_handle_t semaphore_handle{};
  semaphore_handle.struct_size = sizeof(semaphore_handle);
  semaphore_handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  semaphore_handle.fd = fds[0];
  expect_error([&] { (void)device_.import_semaphore(semaphore_handle); },
               HALO_STATUS_UNIMPLEMENTED);
  EXPECT_NE(fcntl(fds[0], F_GETFD), -1);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(HaloHppResourcesTest, ObjectsNameTheirType) {
  EXPECT_EQ(halo::Object(device_).type(), HALO_OBJECT_TYPE_DEVICE);
  EXPECT_EQ(halo::Object(buffer(64)).type(), HALO_OBJECT_TYPE_BUFFER);
  EXPECT_EQ(halo::Object(device_.create_command_buffer()).type(),
            HALO_OBJECT_TYPE_COMMAND_BUFFER);
  EXPECT_EQ(halo::Object(device_.create_semaphore()).type(), HALO_OBJECT_TYPE_SEMAPHORE);
  EXPECT_EQ(halo::Object(halo::Fence::create()).type(), HALO_OBJECT_TYPE_FENCE);
  EXPECT_EQ(halo::Object(halo::Buffer()).type(), HALO_OBJECT_TYPE_NONE);
  // An Object holds its own reference: the buffer outlives the Buffer.
  halo::Object kept;
  {
    const halo::Buffer temporary = buffer(64);
    kept = halo::Object(temporary);
  }
  EXPECT_EQ(kept.type(), HALO_OBJECT_TYPE_BUFFER);
  EXPECT_EQ(halo_buffer_size(reinterpret_cast<halo_buffer_t*>(kept.get())), 64u);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
