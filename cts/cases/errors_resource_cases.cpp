// errors.*, part two: buffers, command buffers and executables given NULL or
// wrong-type handles (INVALID_ARGUMENT naming the function, even on plugins
// that have none of them), and the status and deadline helpers every caller
// relies on to read those errors.
#include <climits>
#include <cstring>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

template <typename To, typename From>
To* as(From* handle) {
  return reinterpret_cast<To*>(handle);
}

// --- buffers --------------------------------------------------------------------------

// Calls every function that takes a buffer with |buffer| (NULL or not a
// buffer).
void check_bad_buffer(halo_buffer_t* buffer) {
  void* pointer = reinterpret_cast<void*>(0x1);
  CTS_ASSERT_EQ(halo_buffer_size(buffer), 0u);
  CTS_ASSERT_INVALID(halo_buffer_map_range(buffer, 0, 16, &pointer), "halo_buffer_map_range");
  CTS_ASSERT(pointer == reinterpret_cast<void*>(0x1) || pointer == nullptr);
  CTS_ASSERT_INVALID(halo_buffer_unmap_range(buffer, 0, 16), "halo_buffer_unmap_range");
  CTS_ASSERT_INVALID(halo_buffer_flush_range(buffer, 0, 16), "halo_buffer_flush_range");
  CTS_ASSERT_INVALID(halo_buffer_invalidate_range(buffer, 0, 16), "halo_buffer_invalidate_range");
}

HALO_CTS_CASE("errors.buffer.null_handle", kNeedNothing,
              "buffer functions with a NULL buffer are INVALID_ARGUMENT naming the function (halo_buffer_size returns 0)") {
  check_bad_buffer(nullptr);
}

HALO_CTS_CASE("errors.buffer.semaphore_as_buffer", kNeedSemaphores,
              "buffer functions given a semaphore as the buffer are INVALID_ARGUMENT naming the function (size 0)") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  check_bad_buffer(as<halo_buffer_t>(semaphore));
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
}

HALO_CTS_CASE("errors.buffer.allocate", kNeedSemaphores,
              "halo_buffer_allocate with a NULL/semaphore device, NULL params or out, small struct_size or a non-power-of-two alignment is INVALID_ARGUMENT") {
  const char* const kFunction = "halo_buffer_allocate";
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_MAPPING;
  params.size = 256;
  halo_buffer_t* buffer = nullptr;
  CTS_ASSERT_INVALID(halo_buffer_allocate(nullptr, &params, &buffer), kFunction);
  CTS_ASSERT_INVALID(halo_buffer_allocate(as<halo_device_t>(ctx.semaphore(0)), &params, &buffer),
                     kFunction);
  CTS_ASSERT_INVALID(halo_buffer_allocate(ctx.device(), nullptr, &buffer), kFunction);
  CTS_ASSERT_INVALID(halo_buffer_allocate(ctx.device(), &params, nullptr), kFunction);
  params.struct_size = 4;
  CTS_ASSERT_INVALID(halo_buffer_allocate(ctx.device(), &params, &buffer), kFunction);
  params.struct_size = sizeof(params);
  params.alignment = 48;
  CTS_ASSERT_INVALID(halo_buffer_allocate(ctx.device(), &params, &buffer), kFunction);
  CTS_ASSERT(buffer == nullptr);
}

// --- command buffers ---------------------------------------------------------------------

// Calls every function that takes a command buffer with |command_buffer|
// (NULL or not a command buffer).
void check_bad_command_buffer(halo_command_buffer_t* command_buffer) {
  const uint32_t pattern = 0;
  const char bytes[4] = {};
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  CTS_ASSERT_INVALID(halo_command_buffer_begin(command_buffer), "halo_command_buffer_begin");
  CTS_ASSERT_INVALID(halo_command_buffer_end(command_buffer), "halo_command_buffer_end");
  CTS_ASSERT_INVALID(halo_command_buffer_barrier(command_buffer), "halo_command_buffer_barrier");
  CTS_ASSERT_INVALID(halo_command_buffer_fill(command_buffer, nullptr, 0, 4, &pattern, 4),
                     "halo_command_buffer_fill");
  CTS_ASSERT_INVALID(halo_command_buffer_update(command_buffer, bytes, nullptr, 0, 4),
                     "halo_command_buffer_update");
  CTS_ASSERT_INVALID(halo_command_buffer_copy(command_buffer, nullptr, 0, nullptr, 0, 4),
                     "halo_command_buffer_copy");
  CTS_ASSERT_INVALID(halo_command_buffer_dispatch(command_buffer, &params),
                     "halo_command_buffer_dispatch");
}

HALO_CTS_CASE("errors.command_buffer.null_handle", kNeedNothing,
              "every command buffer function with a NULL command buffer is INVALID_ARGUMENT naming the function") {
  check_bad_command_buffer(nullptr);
}

HALO_CTS_CASE("errors.command_buffer.semaphore_as_command_buffer", kNeedSemaphores,
              "every command buffer function given a semaphore as the command buffer is INVALID_ARGUMENT naming the function") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  check_bad_command_buffer(as<halo_command_buffer_t>(semaphore));
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
}

HALO_CTS_CASE("errors.command_buffer.create", kNeedSemaphores,
              "halo_command_buffer_create with a NULL or semaphore device or a NULL out is INVALID_ARGUMENT") {
  const char* const kFunction = "halo_command_buffer_create";
  halo_command_buffer_t* command_buffer = nullptr;
  CTS_ASSERT_INVALID(halo_command_buffer_create(nullptr, HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                                &command_buffer),
                     kFunction);
  CTS_ASSERT_INVALID(halo_command_buffer_create(as<halo_device_t>(ctx.semaphore(0)),
                                                HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                                &command_buffer),
                     kFunction);
  CTS_ASSERT_INVALID(halo_command_buffer_create(ctx.device(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                                nullptr),
                     kFunction);
  CTS_ASSERT(command_buffer == nullptr);
}

// --- executables ---------------------------------------------------------------------

void check_bad_executable(halo_executable_t* executable) {
  uint32_t count = 0, ordinal = 0;
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_INVALID(halo_executable_entry_point_count(executable, &count),
                     "halo_executable_entry_point_count");
  CTS_ASSERT_INVALID(halo_executable_query_entry_point(executable, 0, &info),
                     "halo_executable_query_entry_point");
  CTS_ASSERT_INVALID(halo_executable_lookup_entry_point(executable, "main", &ordinal),
                     "halo_executable_lookup_entry_point");
}

HALO_CTS_CASE("errors.executable.null_handle", kNeedNothing,
              "every executable function with a NULL executable is INVALID_ARGUMENT naming the function") {
  check_bad_executable(nullptr);
}

HALO_CTS_CASE("errors.executable.semaphore_as_executable", kNeedSemaphores,
              "every executable function given a semaphore as the executable is INVALID_ARGUMENT naming the function") {
  check_bad_executable(as<halo_executable_t>(ctx.semaphore(0)));
}

HALO_CTS_CASE("errors.executable.create", kNeedSemaphores,
              "halo_executable_create with a NULL/semaphore device, NULL params or out, small struct_size, NULL format or NULL data is INVALID_ARGUMENT") {
  const char* const kFunction = "halo_executable_create";
  const char data[4] = {1, 2, 3, 4};
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "cts-no-such-format";
  params.data = data;
  params.data_size = sizeof(data);
  halo_executable_t* executable = nullptr;
  CTS_ASSERT_INVALID(halo_executable_create(nullptr, &params, &executable), kFunction);
  CTS_ASSERT_INVALID(halo_executable_create(as<halo_device_t>(ctx.semaphore(0)), &params,
                                            &executable),
                     kFunction);
  CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), nullptr, &executable), kFunction);
  CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, nullptr), kFunction);
  params.struct_size = 4;
  CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, &executable), kFunction);
  params.struct_size = sizeof(params);
  params.format = nullptr;
  CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, &executable), kFunction);
  params.format = "cts-no-such-format";
  params.data = nullptr;
  CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, &executable), kFunction);
  CTS_ASSERT(executable == nullptr);
}

HALO_CTS_CASE("errors.unimplemented.missing_features", kNeedNothing,
              "valid buffer, command buffer and executable requests are UNIMPLEMENTED exactly when the feature bit is missing") {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = caps.memory_types & (~caps.memory_types + 1);  // Lowest offered.
  params.usage = HALO_BUFFER_USAGE_TRANSFER_TARGET;
  params.size = 256;
  halo_buffer_t* buffer = nullptr;
  halo_status_t status = halo_buffer_allocate(ctx.device(), &params, &buffer);
  halo_buffer_release(buffer);
  if ((caps.features & HALO_DEVICE_FEATURE_BUFFERS) == 0) {
    CTS_ASSERT_STATUS(status, HALO_STATUS_UNIMPLEMENTED);
  } else {
    CTS_ASSERT_OK(status);
  }
  halo_command_buffer_t* command_buffer = nullptr;
  status = halo_command_buffer_create(ctx.device(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                      &command_buffer);
  halo_command_buffer_release(command_buffer);
  if ((caps.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS) == 0) {
    CTS_ASSERT_STATUS(status, HALO_STATUS_UNIMPLEMENTED);
  } else {
    CTS_ASSERT_OK(status);
  }
  // An unknown format: INVALID_ARGUMENT where executables exist.
  const char data[4] = {1, 2, 3, 4};
  halo_executable_params_t executable_params = {};
  executable_params.struct_size = sizeof(executable_params);
  executable_params.format = "cts-no-such-format";
  executable_params.data = data;
  executable_params.data_size = sizeof(data);
  halo_executable_t* executable = nullptr;
  status = halo_executable_create(ctx.device(), &executable_params, &executable);
  halo_executable_release(executable);
  CTS_ASSERT_STATUS(status, (caps.features & HALO_DEVICE_FEATURE_DISPATCH) == 0
                                ? HALO_STATUS_UNIMPLEMENTED
                                : HALO_STATUS_INVALID_ARGUMENT);
}

// --- status helpers ---------------------------------------------------------------------

struct CodeRow {
  halo_status_code_t code;
  const char* name;
  const char* description;
};

constexpr CodeRow kCodes[] = {
#define HALO_CTS_CODE_ROW_(name, value, text) {HALO_STATUS_##name, #name, text},
    HALO_STATUS_CODE_LIST(HALO_CTS_CODE_ROW_)
#undef HALO_CTS_CODE_ROW_
};

HALO_CTS_CASE("errors.status.code_names", kNeedNothing,
              "halo_status_code_name and _description give every code's name and text; unknown codes are UNRECOGNIZED") {
  CTS_ASSERT_EQ(sizeof(kCodes) / sizeof(kCodes[0]), static_cast<size_t>(HALO_STATUS_CODE_COUNT_));
  for (const CodeRow& row : kCodes) {
    CTS_ASSERT_EQ(std::string(halo_status_code_name(row.code)), std::string(row.name));
    CTS_ASSERT_EQ(std::string(halo_status_code_description(row.code)),
                  std::string(row.description));
  }
  for (int unknown : {-1, static_cast<int>(HALO_STATUS_CODE_COUNT_), 1000, INT_MAX}) {
    const auto code = static_cast<halo_status_code_t>(unknown);
    CTS_ASSERT_EQ(std::string(halo_status_code_name(code)), std::string("UNRECOGNIZED"));
    CTS_ASSERT(halo_status_code_description(code) != nullptr);
  }
}

HALO_CTS_CASE("errors.status.create_and_read", kNeedNothing,
              "status_create/format keep every code and message (OK is NULL; a NULL message reads \"\")") {
  CTS_ASSERT(halo_status_create(HALO_STATUS_OK, "ignored") == nullptr);
  CTS_ASSERT(halo_status_format(HALO_STATUS_OK, "%d", 1) == nullptr);
  CTS_ASSERT_EQ(static_cast<int>(halo_status_code(nullptr)), static_cast<int>(HALO_STATUS_OK));
  CTS_ASSERT_EQ(std::string(halo_status_message(nullptr)), std::string(""));
  for (const CodeRow& row : kCodes) {
    if (row.code == HALO_STATUS_OK) continue;
    halo_status_t status = halo_status_create(row.code, row.name);
    CTS_ASSERT_FAILURE(status, row.code, row.name);
    CTS_ASSERT_FAILURE(halo_status_format(row.code, "%s-%d", row.name, 7), row.code,
                       std::string(row.name) + "-7");
  }
  CTS_ASSERT_FAILURE(halo_status_create(HALO_STATUS_INTERNAL, nullptr), HALO_STATUS_INTERNAL, "");
}

HALO_CTS_CASE("errors.status.clone_annotate", kNeedNothing,
              "clone copies code and message independently; annotate prefixes the message and keeps the code, for every code") {
  CTS_ASSERT(halo_status_clone(nullptr) == nullptr);
  CTS_ASSERT(halo_status_annotate(nullptr, "prefix") == nullptr);
  for (const CodeRow& row : kCodes) {
    if (row.code == HALO_STATUS_OK) continue;
    halo_status_t original = halo_status_create(row.code, "cts message");
    halo_status_t clone = halo_status_clone(original);
    halo_status_free(original);  // The clone must not depend on it.
    CTS_ASSERT_FAILURE(halo_status_clone(clone), row.code, "cts message");
    halo_status_t annotated = halo_status_annotate(clone, "halo_cts_caller");  // Takes |clone|.
    CTS_ASSERT_FAILURE(annotated, row.code, "halo_cts_caller: cts message");
  }
}

HALO_CTS_CASE("errors.status.from_code", kNeedNothing,
              "halo_status_from_code gives each code with its description; OK is NULL; free and clone accept it") {
  CTS_ASSERT(halo_status_from_code(HALO_STATUS_OK) == nullptr);
  for (const CodeRow& row : kCodes) {
    if (row.code == HALO_STATUS_OK) continue;
    halo_status_t status = halo_status_from_code(row.code);
    CTS_ASSERT_FAILURE(halo_status_clone(status), row.code, row.description);
    CTS_ASSERT_FAILURE(status, row.code, row.description);  // Frees it: a no-op.
    CTS_ASSERT_FAILURE(halo_status_from_code(row.code), row.code, row.description);
  }
}

// --- deadlines ---------------------------------------------------------------------------

HALO_CTS_CASE("errors.deadline.saturates", kNeedNothing,
              "halo_deadline_after_ns maps <= 0 to INFINITE_PAST and huge timeouts to INFINITE_FUTURE; the clock never goes back") {
  CTS_ASSERT_EQ(halo_deadline_after_ns(0), HALO_DEADLINE_INFINITE_PAST);
  CTS_ASSERT_EQ(halo_deadline_after_ns(-5), HALO_DEADLINE_INFINITE_PAST);
  CTS_ASSERT_EQ(halo_deadline_after_ns(INT64_MIN), HALO_DEADLINE_INFINITE_PAST);
  CTS_ASSERT_EQ(halo_deadline_after_ns(INT64_MAX), HALO_DEADLINE_INFINITE_FUTURE);
  CTS_ASSERT_EQ(halo_deadline_after_ns(INT64_MAX - 1), HALO_DEADLINE_INFINITE_FUTURE);
  const halo_time_ns_t before = halo_time_now_ns();
  const halo_time_ns_t deadline = halo_deadline_after_ns(1000000000);
  CTS_ASSERT(deadline >= before + 1000000000);
  halo_time_ns_t previous = halo_time_now_ns();
  for (int i = 0; i < 1000; ++i) {
    const halo_time_ns_t now = halo_time_now_ns();
    CTS_ASSERT(now >= previous);
    previous = now;
  }
}

}  // namespace
