// Unit tests of the shared buffer and command-buffer checks
// (halo/sdk/commands.hpp) against a fake host: every rule, its status code,
// the call and argument its message names, and the recording state machine.
#include "halo/sdk/commands.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

constexpr halo_buffer_usage_t kAllUsage =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
constexpr uint64_t kWhole = HALO_WHOLE_BUFFER;

class CommandsTest : public ::testing::Test {
 protected:
  void SetUp() override { statuses_ = testing::live_statuses(); }
  // Every status a check returned was freed: none leaked.
  void TearDown() override { EXPECT_EQ(testing::live_statuses(), statuses_); }

  // Expects |status| (taken) to have |code| and a message containing every
  // one of |words|.
  static void expect(halo_status_t status, halo_status_code_t code,
                     std::initializer_list<const char*> words) {
    StatusHolder holder(status);
    EXPECT_EQ(holder.code(), code) << holder.message();
    for (const char* word : words) {
      EXPECT_NE(holder.message().find(word), std::string::npos)
          << "'" << word << "' missing from: " << holder.message();
    }
  }
  static void expect_ok(halo_status_t status) {
    StatusHolder holder(status);
    EXPECT_EQ(holder.get(), nullptr) << holder.message();
  }

 private:
  long statuses_ = 0;
};

BufferFacts facts(uint64_t size, halo_buffer_usage_t usage = kAllUsage,
                  halo_memory_type_t type = HALO_MEMORY_TYPE_HOST_VISIBLE) {
  return BufferFacts{size, usage, type};
}

TEST_F(CommandsTest, BufferParams) {
  halo_device_capabilities_t caps = {};
  caps.memory_types =
      HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE;
  caps.max_buffer_size = 1000;
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_MAPPING;
  params.size = 1000;
  expect_ok(check_buffer_params(fake_host(), caps, params));
  params.memory_type = 0;
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_INVALID_ARGUMENT,
         {"halo_buffer_allocate", "params->memory_type"});
  params.memory_type = HALO_MEMORY_TYPE_HOST_CACHED;  // Not offered.
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_INVALID_ARGUMENT, {"params->memory_type 0x8"});
  params.memory_type = caps.memory_types;
  params.usage = 0;
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_INVALID_ARGUMENT, {"params->usage"});
  params.usage = 1u << 7;
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_INVALID_ARGUMENT, {"params->usage 0x80"});
  params.usage = kAllUsage;
  params.size = 0;
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_INVALID_ARGUMENT, {"params->size is 0"});
  params.size = 1001;
  expect(check_buffer_params(fake_host(), caps, params),
         HALO_STATUS_RESOURCE_EXHAUSTED, {"1001", "max_buffer_size 1000"});
}

TEST_F(CommandsTest, ResolveRange) {
  uint64_t length = kWhole;
  expect_ok(resolve_range(fake_host(), "f", "buffer", 100, 30, &length));
  EXPECT_EQ(length, 70u);
  length = 0;
  expect_ok(resolve_range(fake_host(), "f", "buffer", 100, 100, &length));
  length = kWhole;
  expect_ok(resolve_range(fake_host(), "f", "buffer", 100, 100, &length));
  EXPECT_EQ(length, 0u);
  length = 70;
  expect_ok(resolve_range(fake_host(), "f", "buffer", 100, 30, &length));
  length = 0;
  expect(resolve_range(fake_host(), "f", "thing", 100, 101, &length),
         HALO_STATUS_OUT_OF_RANGE, {"f:", "offset 101", "thing"});
  length = 71;
  expect(resolve_range(fake_host(), "f", "thing", 100, 30, &length),
         HALO_STATUS_OUT_OF_RANGE, {"f:", "[30, +71)", "thing"});
  // offset + length wraps around 2^64: still refused.
  length = UINT64_MAX - 10;
  expect(resolve_range(fake_host(), "f", "thing", 100, 20, &length),
         HALO_STATUS_OUT_OF_RANGE, {"thing"});
}

TEST_F(CommandsTest, Map) {
  uint64_t length = kWhole;
  expect_ok(check_map(fake_host(), facts(64), 16, &length));
  EXPECT_EQ(length, 48u);
  length = 8;
  expect(check_map(fake_host(),
                   facts(64, kAllUsage, HALO_MEMORY_TYPE_DEVICE_LOCAL), 0,
                   &length),
         HALO_STATUS_FAILED_PRECONDITION,
         {"halo_buffer_map_range", "HOST_VISIBLE"});
  length = 65;
  expect(check_map(fake_host(), facts(64), 0, &length),
         HALO_STATUS_OUT_OF_RANGE, {"halo_buffer_map_range"});
}

TEST_F(CommandsTest, Fill) {
  uint64_t length = kWhole;
  expect_ok(check_fill(fake_host(), facts(64), 8, &length, 4));
  EXPECT_EQ(length, 56u);
  length = 0;
  expect_ok(check_fill(fake_host(), facts(64), 64, &length, 2));
  for (size_t bad : {size_t{0}, size_t{3}, size_t{8}}) {
    length = 4;
    expect(check_fill(fake_host(), facts(64), 0, &length, bad),
           HALO_STATUS_INVALID_ARGUMENT,
           {"halo_command_buffer_fill", "pattern_length"});
  }
  length = 8;
  expect(check_fill(fake_host(), facts(64), 2, &length, 4),
         HALO_STATUS_INVALID_ARGUMENT, {"multiples of pattern_length 4"});
  length = 6;
  expect(check_fill(fake_host(), facts(64), 0, &length, 4),
         HALO_STATUS_INVALID_ARGUMENT, {"multiples"});
  // HALO_WHOLE_BUFFER resolves first; the rest must still be whole
  // patterns: 62 bytes are 2-byte patterns, not 4-byte ones.
  length = kWhole;
  expect_ok(check_fill(fake_host(), facts(64), 2, &length, 2));
  EXPECT_EQ(length, 62u);
  length = kWhole;
  expect(check_fill(fake_host(), facts(66), 4, &length, 4),
         HALO_STATUS_INVALID_ARGUMENT, {"length 62"});
  length = 8;
  expect(check_fill(fake_host(), facts(64), 60, &length, 4),
         HALO_STATUS_OUT_OF_RANGE, {"target"});
  length = 4;
  expect(check_fill(fake_host(),
                    facts(64, HALO_BUFFER_USAGE_TRANSFER_SOURCE), 0, &length,
                    4),
         HALO_STATUS_INVALID_ARGUMENT, {"target", "TRANSFER_TARGET"});
}

TEST_F(CommandsTest, Update) {
  expect_ok(check_update(fake_host(), facts(64), 0, 64));
  expect_ok(check_update(fake_host(), facts(64), 64, 0));
  expect(check_update(fake_host(), facts(64), 1, 64), HALO_STATUS_OUT_OF_RANGE,
         {"halo_command_buffer_update", "target"});
  expect(check_update(fake_host(), facts(64), 0, kWhole),
         HALO_STATUS_INVALID_ARGUMENT, {"HALO_WHOLE_BUFFER"});
  expect(check_update(fake_host(),
                      facts(64, HALO_BUFFER_USAGE_TRANSFER_SOURCE), 0, 4),
         HALO_STATUS_INVALID_ARGUMENT, {"TRANSFER_TARGET"});
}

TEST_F(CommandsTest, Copy) {
  const BufferFacts buffer = facts(128);
  expect_ok(check_copy(fake_host(), buffer, 0, buffer, 64, 64, true));
  expect_ok(check_copy(fake_host(), buffer, 64, buffer, 0, 64, true));
  // Overlapping offsets are fine across two buffers, and for no bytes.
  expect_ok(check_copy(fake_host(), buffer, 0, buffer, 8, 64, false));
  expect_ok(check_copy(fake_host(), buffer, 0, buffer, 0, 0, true));
  expect(check_copy(fake_host(), buffer, 0, buffer, 63, 64, true),
         HALO_STATUS_INVALID_ARGUMENT, {"halo_command_buffer_copy", "overlap"});
  expect(check_copy(fake_host(), buffer, 10, buffer, 10, 1, true),
         HALO_STATUS_INVALID_ARGUMENT, {"overlap"});
  expect(check_copy(fake_host(), buffer, 0, buffer, 0, kWhole, false),
         HALO_STATUS_INVALID_ARGUMENT, {"HALO_WHOLE_BUFFER"});
  expect(check_copy(fake_host(), buffer, 100, buffer, 0, 29, false),
         HALO_STATUS_OUT_OF_RANGE, {"source"});
  expect(check_copy(fake_host(), buffer, 0, buffer, 100, 29, false),
         HALO_STATUS_OUT_OF_RANGE, {"target"});
  expect(check_copy(fake_host(), facts(128, HALO_BUFFER_USAGE_TRANSFER_TARGET),
                    0, buffer, 0, 4, false),
         HALO_STATUS_INVALID_ARGUMENT, {"source", "TRANSFER_SOURCE"});
  expect(check_copy(fake_host(), buffer, 0,
                    facts(128, HALO_BUFFER_USAGE_TRANSFER_SOURCE), 0, 4, false),
         HALO_STATUS_INVALID_ARGUMENT, {"target", "TRANSFER_TARGET"});
}

TEST_F(CommandsTest, DispatchAndBindings) {
  halo_entry_point_info_t entry = {};
  entry.struct_size = sizeof(entry);
  std::snprintf(entry.name, sizeof(entry.name), "saxpy");
  entry.binding_count = 2;
  entry.constant_size = 8;
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = 1;
  params.binding_count = 2;
  params.constant_size = 8;
  expect_ok(check_dispatch(fake_host(), params, entry, 2));
  expect(check_dispatch(fake_host(), params, entry, 1),
         HALO_STATUS_INVALID_ARGUMENT,
         {"halo_command_buffer_dispatch", "params->entry_point 1"});
  params.binding_count = 3;
  expect(check_dispatch(fake_host(), params, entry, 2),
         HALO_STATUS_INVALID_ARGUMENT, {"params->binding_count 3", "'saxpy'"});
  params.binding_count = 2;
  params.constant_size = 4;
  expect(check_dispatch(fake_host(), params, entry, 2),
         HALO_STATUS_INVALID_ARGUMENT, {"params->constant_size 4", "'saxpy'"});

  uint64_t length = kWhole;
  expect_ok(check_binding(fake_host(), 0, facts(256), 64, &length, 64));
  EXPECT_EQ(length, 192u);
  length = kWhole;
  expect(check_binding(fake_host(), 1, facts(256), 32, &length, 64),
         HALO_STATUS_INVALID_ARGUMENT,
         {"params->bindings[1].offset 32", "min_buffer_alignment 64"});
  length = kWhole;
  expect(check_binding(fake_host(), 1, facts(256), 256, &length, 64),
         HALO_STATUS_INVALID_ARGUMENT, {"params->bindings[1] is empty"});
  length = 200;
  expect(check_binding(fake_host(), 2, facts(256), 64, &length, 64),
         HALO_STATUS_OUT_OF_RANGE, {"params->bindings[2]"});
  length = kWhole;
  expect(check_binding(fake_host(), 3,
                       facts(256, HALO_BUFFER_USAGE_MAPPING), 0, &length, 64),
         HALO_STATUS_INVALID_ARGUMENT,
         {"params->bindings[3]", "DISPATCH_STORAGE"});
}

TEST_F(CommandsTest, CommandBufferMode) {
  expect_ok(check_command_buffer_mode(fake_host(),
                                      HALO_COMMAND_BUFFER_MODE_ONE_SHOT));
  expect_ok(check_command_buffer_mode(fake_host(),
                                      HALO_COMMAND_BUFFER_MODE_REUSABLE));
  for (halo_command_buffer_mode_t mode : {0u, 3u, 4u}) {
    expect(check_command_buffer_mode(fake_host(), mode),
           HALO_STATUS_INVALID_ARGUMENT, {"halo_command_buffer_create", "mode"});
  }
}

TEST_F(CommandsTest, RecordingStateMachine) {
  RecordingState state(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  expect(state.check_recording(fake_host(), "halo_command_buffer_fill"),
         HALO_STATUS_FAILED_PRECONDITION, {"halo_command_buffer_fill"});
  expect(state.end(fake_host()), HALO_STATUS_FAILED_PRECONDITION,
         {"halo_command_buffer_end"});
  expect(state.acquire_for_submit(fake_host(), 3),
         HALO_STATUS_FAILED_PRECONDITION,
         {"info->command_buffers[3]", "not been ended"});
  expect_ok(state.begin(fake_host()));
  expect(state.begin(fake_host()), HALO_STATUS_FAILED_PRECONDITION,
         {"already begun"});
  expect_ok(state.check_recording(fake_host(), "x"));
  expect(state.acquire_for_submit(fake_host(), 0),
         HALO_STATUS_FAILED_PRECONDITION, {"not been ended"});
  expect_ok(state.end(fake_host()));
  expect(state.check_recording(fake_host(), "halo_command_buffer_copy"),
         HALO_STATUS_FAILED_PRECONDITION, {"halo_command_buffer_copy"});
  expect(state.end(fake_host()), HALO_STATUS_FAILED_PRECONDITION, {});
  expect(state.begin(fake_host()), HALO_STATUS_FAILED_PRECONDITION, {});
  for (int i = 0; i < 3; ++i) expect_ok(state.acquire_for_submit(fake_host(), 0));
  EXPECT_EQ(state.mode(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
}

TEST_F(CommandsTest, OneShotIsAcquiredOnceUnlessGivenBack) {
  RecordingState state(HALO_COMMAND_BUFFER_MODE_ONE_SHOT);
  expect_ok(state.begin(fake_host()));
  expect_ok(state.end(fake_host()));
  expect_ok(state.acquire_for_submit(fake_host(), 0));
  expect(state.acquire_for_submit(fake_host(), 2),
         HALO_STATUS_FAILED_PRECONDITION,
         {"info->command_buffers[2]", "ONE_SHOT", "already submitted"});
  // A submission that fails after acquiring gives it back.
  state.release_unsubmitted();
  expect_ok(state.acquire_for_submit(fake_host(), 0));
}

}  // namespace
}  // namespace halo::sdk
