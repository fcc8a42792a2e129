// dispatch.*: running the test kernels (cts/testdata/kernels) and checking
// every element they write, and nothing beyond: saxpy over full and partial
// workgroups, constants of several types, four bindings, dispatches reading
// what earlier ones wrote, a thousand dispatches in one command buffer,
// binding offsets, zero workgroups; executable entry-point queries (the
// workgroup size each form declares, ABI 1.0's struct_size); and the
// status of each bad dispatch or executable (plugins/sdk/include/halo/sdk/
// commands.hpp lists the rules). Values are small integers, exact in float.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kDispatchNeeds =
    kNeedBuffers | kNeedCommandBuffers | kNeedDispatch | kNeedQueues;
constexpr uint32_t kSentinel = 0xeeeeeeeeu;
constexpr float kFloatSentinel = -1.5f;

// A host buffer holding |values|.
template <typename T>
BufferRef buffer_of(Context& ctx, const std::vector<T>& values) {
  BufferRef buffer = host_buffer(ctx, values.size() * sizeof(T));
  write_values(buffer.get(), values);
  return buffer;
}

// Runs saxpy over |n| elements in buffers with 64 sentinel elements past n,
// and checks y = a * x + y below n and the sentinels untouched above.
void check_saxpy(Context& ctx, halo_executable_t* saxpy, uint32_t n) {
  std::vector<float> x(n + 64, kFloatSentinel), y(n + 64, kFloatSentinel);
  std::vector<float> expected = y;
  const float a = 3.0f;
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 4096);
    y[i] = static_cast<float>(2 * (i % 1000) + 1);
    expected[i] = a * x[i] + y[i];
  }
  BufferRef y_buffer = buffer_of(ctx, y), x_buffer = buffer_of(ctx, x);
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), saxpy, workgroups_for(n), {y_buffer.get(), x_buffer.get()},
                  SaxpyConstants{a, n});
  end_and_execute(ctx, commands.get());
  check_values(read_values<float>(y_buffer.get(), n + 64), expected,
               "y after saxpy over " + std::to_string(n) + " elements", __FILE__, __LINE__);
  CTS_ASSERT_VALUES(read_values<float>(x_buffer.get(), n + 64), x);
}

// fill_index's result: base + i below n, kSentinel from n to |size|.
std::vector<uint32_t> indices(uint32_t base, uint32_t n, size_t size) {
  std::vector<uint32_t> values(size, kSentinel);
  for (uint32_t i = 0; i < n; ++i) values[i] = base + i;
  return values;
}

// --- running kernels ----------------------------------------------------------------

HALO_CTS_CASE("dispatch.saxpy.exact", kDispatchNeeds,
              "saxpy over 256 elements (4 workgroups) gives exactly 3 * x + y and leaves x unchanged") {
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  check_saxpy(ctx, saxpy.get(), 256);
}

HALO_CTS_CASE("dispatch.saxpy.partial_workgroups", kDispatchNeeds,
              "saxpy over 1, 63, 64, 65 and 1,000 elements writes every element below n and none past it") {
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  for (uint32_t n : {1u, 63u, 64u, 65u, 1000u}) check_saxpy(ctx, saxpy.get(), n);
}

HALO_CTS_CASE("dispatch.saxpy.large", kDispatchNeeds,
              "saxpy over 2^20 elements (16,384 workgroups) is exact everywhere") {
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  check_saxpy(ctx, saxpy.get(), 1u << 20);
}

HALO_CTS_CASE("dispatch.saxpy.device_memory", kDispatchNeeds,
              "saxpy over DEVICE_LOCAL buffers (where offered) filled by update and read back through a copy") {
  constexpr uint32_t kCount = 500;
  const bool local = (ctx.capabilities().memory_types & HALO_MEMORY_TYPE_DEVICE_LOCAL) != 0;
  const halo_memory_type_t type = local ? HALO_MEMORY_TYPE_DEVICE_LOCAL : host_memory_type(ctx);
  const halo_buffer_usage_t usage = HALO_BUFFER_USAGE_DISPATCH_STORAGE |
                                    HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                                    HALO_BUFFER_USAGE_TRANSFER_TARGET;
  std::vector<float> x(kCount), y(kCount), expected(kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(7 - static_cast<int>(i));
    expected[i] = 0.5f * x[i] + y[i];
  }
  BufferRef y_buffer = allocate_buffer(ctx.device(), kCount * 4, type, usage);
  BufferRef x_buffer = allocate_buffer(ctx.device(), kCount * 4, type, usage);
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  CommandBufferRef commands = begin_commands(ctx.device());
  CTS_ASSERT_OK(halo_command_buffer_update(commands.get(), y.data(), y_buffer.get(), 0, kCount * 4));
  CTS_ASSERT_OK(halo_command_buffer_update(commands.get(), x.data(), x_buffer.get(), 0, kCount * 4));
  CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
  record_dispatch(commands.get(), saxpy.get(), workgroups_for(kCount),
                  {y_buffer.get(), x_buffer.get()}, SaxpyConstants{0.5f, kCount});
  end_and_execute(ctx, commands.get());
  const std::vector<uint8_t> bytes = read_through_copy(ctx, y_buffer.get(), 0, kCount * 4);
  std::vector<float> result(kCount);
  std::memcpy(result.data(), bytes.data(), bytes.size());
  CTS_ASSERT_VALUES(result, expected);
}

HALO_CTS_CASE("dispatch.constants.mixed_types", kDispatchNeeds,
              "the constants kernel sees a uint, a negative int, a float and a uint in order (130 elements, sentinels after)") {
  constexpr uint32_t kCount = 130;
  const MixedConstants constants{1000u, -7, 0.75f, 0xa5a5a5a5u, kCount};
  std::vector<uint32_t> expected((kCount + 2) * 4, kSentinel);
  for (uint32_t i = 0; i < kCount; ++i) {
    expected[4 * i + 0] = constants.a + i;
    expected[4 * i + 1] = static_cast<uint32_t>(constants.b * static_cast<int32_t>(i));
    expected[4 * i + 2] = static_cast<uint32_t>(constants.c * static_cast<float>(i));
    expected[4 * i + 3] = constants.d ^ i;
  }
  BufferRef out = buffer_of(ctx, std::vector<uint32_t>(expected.size(), kSentinel));
  ExecutableRef kernel = load_kernel(ctx, "constants");
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), kernel.get(), workgroups_for(kCount), {out.get()}, constants);
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(out.get(), expected.size()), expected);
}

HALO_CTS_CASE("dispatch.constants.copied_at_record", kDispatchNeeds,
              "constants are copied when the dispatch is recorded: changing them before submit changes nothing") {
  constexpr uint32_t kCount = 100;
  BufferRef out = buffer_of(ctx, std::vector<uint32_t>(128, kSentinel));
  ExecutableRef fill = load_kernel(ctx, "fill_index");
  CommandBufferRef commands = begin_commands(ctx.device());
  FillIndexConstants constants{100, kCount};
  record_dispatch(commands.get(), fill.get(), workgroups_for(kCount), {out.get()}, constants);
  constants = FillIndexConstants{999, 128};
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(out.get(), 128), indices(100, kCount, 128));
}

HALO_CTS_CASE("dispatch.bindings.four", kDispatchNeeds,
              "multiply_add reads three bindings and writes a fourth: out = a + b * c over 300 elements") {
  constexpr uint32_t kCount = 300;
  std::vector<float> a(kCount), b(kCount), c(kCount, 4.0f), expected(kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i % 8);
    expected[i] = a[i] + b[i] * c[i];
  }
  BufferRef out = buffer_of(ctx, std::vector<float>(kCount, kFloatSentinel));
  BufferRef a_buffer = buffer_of(ctx, a), b_buffer = buffer_of(ctx, b), c_buffer = buffer_of(ctx, c);
  ExecutableRef kernel = load_kernel(ctx, "multiply_add");
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), kernel.get(), workgroups_for(kCount),
                  {out.get(), a_buffer.get(), b_buffer.get(), c_buffer.get()}, CountConstants{kCount});
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<float>(out.get(), kCount), expected);
}

HALO_CTS_CASE("dispatch.bindings.offsets", kDispatchNeeds,
              "bindings at multiples of min_buffer_alignment, two of them into one buffer, touch only their ranges") {
  constexpr uint32_t kCount = 100;
  const uint64_t align = std::max<uint64_t>(ctx.capabilities().min_buffer_alignment, 4);
  const uint64_t x_offset = (kCount * 4 + align - 1) / align * align + align;
  const uint64_t size = x_offset + kCount * 4 + align;
  // One buffer: y at offset |align|, x at |x_offset|, sentinels around both.
  std::vector<float> words(size / 4, kFloatSentinel);
  std::vector<float> expected = words;
  for (uint32_t i = 0; i < kCount; ++i) {
    const float x = static_cast<float>(i), y = static_cast<float>(3 * i);
    words[align / 4 + i] = y;
    words[x_offset / 4 + i] = x;
    expected[x_offset / 4 + i] = x;
    expected[align / 4 + i] = 2.0f * x + y;
  }
  BufferRef buffer = buffer_of(ctx, words);
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  CommandBufferRef commands = begin_commands(ctx.device());
  const std::vector<halo_buffer_binding_t> bindings = {{buffer.get(), align, kCount * 4},
                                                       {buffer.get(), x_offset, HALO_WHOLE_BUFFER}};
  const SaxpyConstants constants{2.0f, kCount};
  const halo_dispatch_params_t params = dispatch_params(
      saxpy.get(), workgroups_for(kCount), bindings, &constants, sizeof(constants));
  CTS_ASSERT_OK(halo_command_buffer_dispatch(commands.get(), &params));
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<float>(buffer.get(), size / 4), expected);
}

HALO_CTS_CASE("dispatch.order.barrier", kDispatchNeeds,
              "fill_index -> barrier -> add_one -> barrier -> add_one in one command buffer gives base + i + 2") {
  constexpr uint32_t kCount = 200;
  BufferRef data = buffer_of(ctx, std::vector<uint32_t>(256, kSentinel));
  ExecutableRef fill = load_kernel(ctx, "fill_index"), add_one = load_kernel(ctx, "add_one");
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), fill.get(), workgroups_for(kCount), {data.get()},
                  FillIndexConstants{10, kCount});
  for (int i = 0; i < 2; ++i) {
    CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    record_dispatch(commands.get(), add_one.get(), workgroups_for(kCount), {data.get()},
                    CountConstants{kCount});
  }
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(data.get(), 256), indices(12, kCount, 256));
}

HALO_CTS_CASE("dispatch.order.across_submissions", kDispatchNeeds,
              "add_one submitted first, waiting on fill_index's later submission, reads what fill_index wrote") {
  constexpr uint32_t kCount = 64;
  BufferRef data = buffer_of(ctx, std::vector<uint32_t>(kCount, kSentinel));
  ExecutableRef fill = load_kernel(ctx, "fill_index"), add_one = load_kernel(ctx, "add_one");
  CommandBufferRef first = begin_commands(ctx.device()), second = begin_commands(ctx.device());
  record_dispatch(first.get(), fill.get(), 1, {data.get()}, FillIndexConstants{5000, kCount});
  record_dispatch(second.get(), add_one.get(), 1, {data.get()}, CountConstants{kCount});
  CTS_ASSERT_OK(halo_command_buffer_end(first.get()));
  CTS_ASSERT_OK(halo_command_buffer_end(second.get()));
  halo_semaphore_t* timeline = ctx.semaphore(0);
  CTS_ASSERT_OK(submit(ctx.device(), {second.get()}, {timeline}, {1}, {timeline}, {2}));
  CTS_ASSERT_OK(submit(ctx.device(), {first.get()}, {}, {}, {timeline}, {1}));
  CTS_ASSERT_OK(halo_semaphore_wait(timeline, 2, deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_VALUES(read_values<uint32_t>(data.get(), kCount), indices(5001, kCount, kCount));
}

HALO_CTS_CASE("dispatch.many.one_thousand", kDispatchNeeds,
              "1,000 add_one dispatches with barriers between, in one command buffer, add exactly 1,000") {
  constexpr uint32_t kCount = 130, kDispatches = 1000;
  BufferRef data = buffer_of(ctx, std::vector<uint32_t>(kCount + 2, 0));
  ExecutableRef add_one = load_kernel(ctx, "add_one");
  CommandBufferRef commands = begin_commands(ctx.device());
  for (uint32_t i = 0; i < kDispatches; ++i) {
    if (i > 0) CTS_ASSERT_OK(halo_command_buffer_barrier(commands.get()));
    record_dispatch(commands.get(), add_one.get(), workgroups_for(kCount), {data.get()},
                    CountConstants{kCount});
  }
  end_and_execute(ctx, commands.get());
  std::vector<uint32_t> expected(kCount + 2, kDispatches);
  expected[kCount] = expected[kCount + 1] = 0;
  CTS_ASSERT_VALUES(read_values<uint32_t>(data.get(), kCount + 2), expected);
}

HALO_CTS_CASE("dispatch.reuse.one_hundred_times", kDispatchNeeds,
              "a REUSABLE command buffer with one add_one, submitted 100 times one after another, adds exactly 100") {
  constexpr uint32_t kCount = 64, kRuns = 100;
  BufferRef data = buffer_of(ctx, std::vector<uint32_t>(kCount, 7));
  ExecutableRef add_one = load_kernel(ctx, "add_one");
  CommandBufferRef commands = begin_commands(ctx.device(), HALO_COMMAND_BUFFER_MODE_REUSABLE);
  record_dispatch(commands.get(), add_one.get(), 1, {data.get()}, CountConstants{kCount});
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  halo_semaphore_t* timeline = ctx.semaphore(0);
  for (uint64_t run = 1; run <= kRuns; ++run) {
    CTS_ASSERT_OK(submit(ctx.device(), {commands.get()}, {}, {}, {timeline}, {run}));
    CTS_ASSERT_OK(halo_semaphore_wait(timeline, run, deadline_in_ms(kGenerousMs)));
  }
  CTS_ASSERT_VALUES(read_values<uint32_t>(data.get(), kCount), std::vector<uint32_t>(kCount, 107));
}

HALO_CTS_CASE("dispatch.workgroups.zero", kDispatchNeeds,
              "a dispatch with 0 workgroups in x, y or z records OK and writes nothing") {
  BufferRef data = buffer_of(ctx, std::vector<uint32_t>(64, kSentinel));
  ExecutableRef fill = load_kernel(ctx, "fill_index");
  CommandBufferRef commands = begin_commands(ctx.device());
  const FillIndexConstants constants{1, 64};
  const std::vector<halo_buffer_binding_t> bindings = {{data.get(), 0, HALO_WHOLE_BUFFER}};
  for (int axis = 0; axis < 3; ++axis) {
    halo_dispatch_params_t params = dispatch_params(fill.get(), 1, bindings, &constants, sizeof(constants));
    params.workgroup_count[axis] = 0;
    CTS_ASSERT_OK(halo_command_buffer_dispatch(commands.get(), &params));
  }
  end_and_execute(ctx, commands.get());
  CTS_ASSERT_VALUES(read_values<uint32_t>(data.get(), 64), std::vector<uint32_t>(64, kSentinel));
}

HALO_CTS_CASE("dispatch.empty.runs", kDispatchNeeds,
              "the empty kernel (no bindings, no constants) dispatched over 1 and 1,000 workgroups completes") {
  ExecutableRef empty = load_kernel(ctx, "empty");
  CommandBufferRef commands = begin_commands(ctx.device());
  record_dispatch(commands.get(), empty.get(), 1, {}, nullptr, 0);
  record_dispatch(commands.get(), empty.get(), 1000, {}, nullptr, 0);
  end_and_execute(ctx, commands.get());
}


// --- bad dispatches ---------------------------------------------------------------------

// A recording command buffer, fill_index and a 256-byte output buffer, for
// the cases that record bad dispatches; check() then proves the command
// buffer still records and runs a valid dispatch alone.
struct DispatchFixture {
  explicit DispatchFixture(Context& ctx)
      : ctx(ctx),
        out(buffer_of(ctx, std::vector<uint32_t>(64, kSentinel))),
        fill(load_kernel(ctx, "fill_index")),
        commands(begin_commands(ctx.device())) {}

  halo_dispatch_params_t params() const {
    return dispatch_params(fill.get(), 1, bindings, &constants, sizeof(constants));
  }
  void check() {
    record_dispatch(commands.get(), fill.get(), 1, {out.get()}, FillIndexConstants{3, 64});
    end_and_execute(ctx, commands.get());
    CTS_ASSERT_VALUES(read_values<uint32_t>(out.get(), 64), indices(3, 64, 64));
  }

  Context& ctx;
  BufferRef out;
  ExecutableRef fill;
  CommandBufferRef commands;
  FillIndexConstants constants{1, 64};
  std::vector<halo_buffer_binding_t> bindings{{out.get(), 0, HALO_WHOLE_BUFFER}};
};

#define ASSERT_DISPATCH_INVALID(fixture, params) \
  CTS_ASSERT_INVALID(halo_command_buffer_dispatch((fixture).commands.get(), &(params)), \
                     "halo_command_buffer_dispatch")

HALO_CTS_CASE("dispatch.errors.binding_count", kDispatchNeeds,
              "a dispatch with fewer or more bindings than the entry point takes is INVALID_ARGUMENT") {
  DispatchFixture fixture(ctx);
  halo_dispatch_params_t params = fixture.params();
  params.binding_count = 0;
  params.bindings = nullptr;
  ASSERT_DISPATCH_INVALID(fixture, params);
  const std::vector<halo_buffer_binding_t> two = {fixture.bindings[0], fixture.bindings[0]};
  params.binding_count = two.size();
  params.bindings = two.data();
  ASSERT_DISPATCH_INVALID(fixture, params);
  fixture.check();
}

HALO_CTS_CASE("dispatch.errors.constant_size", kDispatchNeeds,
              "a dispatch with 0, 4 or 12 bytes of constants for an entry point taking 8 is INVALID_ARGUMENT") {
  DispatchFixture fixture(ctx);
  const uint32_t words[3] = {1, 64, 0};
  halo_dispatch_params_t params = fixture.params();
  params.constants = words;
  for (uint32_t size : {0u, 4u, 12u}) {
    params.constant_size = size;
    ASSERT_DISPATCH_INVALID(fixture, params);
  }
  fixture.check();
}

HALO_CTS_CASE("dispatch.errors.entry_point", kDispatchNeeds,
              "a dispatch of entry point 1 or UINT32_MAX of a one-entry executable is INVALID_ARGUMENT") {
  DispatchFixture fixture(ctx);
  halo_dispatch_params_t params = fixture.params();
  for (uint32_t entry_point : {1u, UINT32_MAX}) {
    params.entry_point = entry_point;
    ASSERT_DISPATCH_INVALID(fixture, params);
  }
  fixture.check();
}

HALO_CTS_CASE("dispatch.errors.bindings", kDispatchNeeds,
              "bindings without DISPATCH_STORAGE, at a misaligned offset or empty are INVALID_ARGUMENT; past the end OUT_OF_RANGE") {
  DispatchFixture fixture(ctx);
  const uint64_t align = std::max<uint64_t>(ctx.capabilities().min_buffer_alignment, 1);
  BufferRef no_storage = allocate_buffer(ctx.device(), 256, host_memory_type(ctx),
                                         HALO_BUFFER_USAGE_MAPPING | HALO_BUFFER_USAGE_TRANSFER_TARGET);
  halo_dispatch_params_t params = fixture.params();
  std::vector<halo_buffer_binding_t> bad = {{no_storage.get(), 0, HALO_WHOLE_BUFFER}};
  params.bindings = bad.data();
  ASSERT_DISPATCH_INVALID(fixture, params);
  if (align > 1) {
    bad[0] = {fixture.out.get(), align / 2, HALO_WHOLE_BUFFER};
    ASSERT_DISPATCH_INVALID(fixture, params);
  }
  if (256 % align == 0) {
    bad[0] = {fixture.out.get(), 256, HALO_WHOLE_BUFFER};  // Offset 256 = the size: empty.
    ASSERT_DISPATCH_INVALID(fixture, params);
  }
  bad[0] = {fixture.out.get(), 0, 0};
  ASSERT_DISPATCH_INVALID(fixture, params);
  // Aligned offsets, so that only the range is wrong.
  const uint64_t past_end = (256 / align + 1) * align;
  for (const halo_buffer_binding_t& outside : {halo_buffer_binding_t{fixture.out.get(), 0, 260},
                                               halo_buffer_binding_t{fixture.out.get(), past_end, 4}}) {
    bad[0] = outside;
    CTS_ASSERT_STATUS(halo_command_buffer_dispatch(fixture.commands.get(), &params),
                      HALO_STATUS_OUT_OF_RANGE);
  }
  fixture.check();
}

HALO_CTS_CASE("dispatch.errors.not_recording", kDispatchNeeds,
              "a dispatch before begin or after end is FAILED_PRECONDITION") {
  BufferRef out = buffer_of(ctx, std::vector<uint32_t>(64, kSentinel));
  ExecutableRef fill = load_kernel(ctx, "fill_index");
  const FillIndexConstants constants{1, 64};
  const std::vector<halo_buffer_binding_t> bindings = {{out.get(), 0, HALO_WHOLE_BUFFER}};
  const halo_dispatch_params_t params = dispatch_params(fill.get(), 1, bindings, &constants, sizeof(constants));
  CommandBufferRef commands;
  CTS_ASSERT_OK(halo_command_buffer_create(ctx.device(), HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                           commands.out()));
  CTS_ASSERT_STATUS(halo_command_buffer_dispatch(commands.get(), &params), HALO_STATUS_FAILED_PRECONDITION);
  CTS_ASSERT_OK(halo_command_buffer_begin(commands.get()));
  CTS_ASSERT_OK(halo_command_buffer_end(commands.get()));
  CTS_ASSERT_STATUS(halo_command_buffer_dispatch(commands.get(), &params), HALO_STATUS_FAILED_PRECONDITION);
  execute(ctx, {commands.get()});
  CTS_ASSERT_VALUES(read_values<uint32_t>(out.get(), 64), std::vector<uint32_t>(64, kSentinel));
}

// --- executables ------------------------------------------------------------------------

struct KernelShape {
  const char* name;
  uint32_t binding_count;
  uint32_t constant_size;
};

constexpr KernelShape kKernels[] = {
    {"add_one", 1, sizeof(CountConstants)},         {"constants", 1, sizeof(MixedConstants)},
    {"empty", 0, 0},                                {"fill_index", 1, sizeof(FillIndexConstants)},
    {"multiply_add", 4, sizeof(CountConstants)},    {"saxpy", 2, sizeof(SaxpyConstants)},
    {"workgroup_ids", 1, 0}};

HALO_CTS_CASE("dispatch.executable.entry_points", kNeedDispatch,
              "each test kernel has one entry point named after it with its binding count and constant size; lookups find it, or NOT_FOUND") {
  for (const KernelShape& shape : kKernels) {
    ExecutableRef executable = load_kernel(ctx, shape.name);
    uint32_t count = 0;
    CTS_ASSERT_OK(halo_executable_entry_point_count(executable.get(), &count));
    CTS_ASSERT_MSG(count == 1, std::string(shape.name) + ": " + std::to_string(count) + " entry points");
    halo_entry_point_info_t info = {};
    info.struct_size = sizeof(info);
    CTS_ASSERT_OK(halo_executable_query_entry_point(executable.get(), 0, &info));
    CTS_ASSERT_EQ(std::string(info.name), std::string(shape.name));
    CTS_ASSERT_MSG(info.binding_count == shape.binding_count && info.constant_size == shape.constant_size,
                   std::string(shape.name) + ": " + std::to_string(info.binding_count) + " bindings, " +
                       std::to_string(info.constant_size) + " bytes of constants");
    uint32_t ordinal = 99;
    CTS_ASSERT_OK(halo_executable_lookup_entry_point(executable.get(), shape.name, &ordinal));
    CTS_ASSERT_EQ(ordinal, 0u);
    CTS_ASSERT_STATUS(halo_executable_lookup_entry_point(executable.get(), "cts_no_such_entry", &ordinal),
                      HALO_STATUS_NOT_FOUND);
    CTS_ASSERT_STATUS(halo_executable_query_entry_point(executable.get(), 1, &info),
                      HALO_STATUS_OUT_OF_RANGE);
  }
}

// The ABI version the plugin under test declared (its registry record's).
uint32_t plugin_abi_version(Context& ctx) {
  size_t count = 0;
  CTS_ASSERT_OK(halo_registry_plugin_count(ctx.registry(), &count));
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    CTS_ASSERT_OK(halo_registry_plugin_record(ctx.registry(), i, &record));
    if (record.state == HALO_PLUGIN_STATE_LOADED && record.name != nullptr &&
        ctx.plugin_name() == record.name) {
      return record.abi_version;
    }
  }
  fail(__FILE__, __LINE__, "no loaded plugin record is named " + ctx.plugin_name());
}

std::string workgroup_size_text(const uint32_t (&size)[3]) {
  return "{" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " +
         std::to_string(size[2]) + "}";
}

HALO_CTS_CASE("dispatch.executable.workgroup_size", kNeedDispatch,
              "each test kernel reports the workgroup size its source declares: {64, 1, 1} in spirv, opencl-c and spirv-kernel, {0, 0, 0} (none fixed) in cpu-so and from ABI 1.0 plugins") {
  // What cts/testdata/README.md says each form declares: GLSL local_size_x =
  // 64 and OpenCL reqd_work_group_size(64, 1, 1) fix {64, 1, 1}; a cpu-so
  // table fixes nothing, as its function loops over its 64 elements itself.
  // A plugin built for ABI 1.0 does not know the member, and libhalo leaves
  // it {0, 0, 0}. A format halo does not ship may do either.
  const bool knows_member = plugin_abi_version(ctx) >= HALO_MAKE_VERSION(1, 1);
  for (const KernelShape& shape : kKernels) {
    const KernelFile file = find_kernel(ctx, shape.name);
    ExecutableRef executable = create_executable(ctx.device(), file);
    halo_entry_point_info_t info = {};
    info.struct_size = sizeof(info);
    CTS_ASSERT_OK(halo_executable_query_entry_point(executable.get(), 0, &info));
    CTS_ASSERT_EQ(info.struct_size, static_cast<uint32_t>(sizeof(info)));
    const bool fixed = info.workgroup_size[0] == 64 && info.workgroup_size[1] == 1 &&
                       info.workgroup_size[2] == 1;
    const bool none = info.workgroup_size[0] == 0 && info.workgroup_size[1] == 0 &&
                      info.workgroup_size[2] == 0;
    bool ok = fixed || none;
    if (!knows_member || file.format == "cpu-so") {
      ok = none;
    } else if (file.format == "spirv" || file.format == "opencl-c" ||
               file.format == "spirv-kernel") {
      ok = fixed;
    }
    CTS_ASSERT_MSG(ok, std::string(shape.name) + " (" + file.format + "): workgroup_size " +
                           workgroup_size_text(info.workgroup_size));
  }
}

HALO_CTS_CASE("dispatch.executable.abi_1_0_struct_size", kNeedDispatch,
              "an entry point info of ABI 1.0's struct_size, filled by libhalo or by the plugin's own query_entry_point, gets the 1.0 members and no byte past them") {
  // A caller built against ABI 1.0 asks libhalo; a libhalo of ABI 1.0 asks
  // the plugin itself with its own 1.0-sized struct. workgroup_size is the
  // first member past 1.0, so its offset is 1.0's size.
  constexpr uint32_t kAbi10Size = offsetof(halo_entry_point_info_t, workgroup_size);
  constexpr unsigned char kCanary = 0xA5;
  ExecutableRef executable = load_kernel(ctx, "saxpy");
  const auto* vtable = reinterpret_cast<const halo_executable_vtable_t*>(
      reinterpret_cast<halo_object_t*>(executable.get())->vtable);
  for (const bool through_libhalo : {true, false}) {
    const std::string caller = through_libhalo ? "halo_executable_query_entry_point"
                                               : "the plugin's query_entry_point";
    alignas(halo_entry_point_info_t) unsigned char bytes[sizeof(halo_entry_point_info_t)];
    std::memset(bytes, kCanary, sizeof(bytes));
    auto* info = reinterpret_cast<halo_entry_point_info_t*>(bytes);
    info->struct_size = kAbi10Size;
    CTS_ASSERT_OK(through_libhalo
                      ? halo_executable_query_entry_point(executable.get(), 0, info)
                      : vtable->query_entry_point(executable.get(), 0, info));
    CTS_ASSERT_MSG(info->struct_size == kAbi10Size,
                   caller + ": struct_size came back as " + std::to_string(info->struct_size));
    CTS_ASSERT_MSG(std::string(info->name) == "saxpy" && info->binding_count == 2 &&
                       info->constant_size == sizeof(SaxpyConstants),
                   caller + ": the 1.0 members are not saxpy's");
    for (size_t i = kAbi10Size; i < sizeof(bytes); ++i) {
      CTS_ASSERT_MSG(bytes[i] == kCanary,
                     caller + ": byte " + std::to_string(i) + " past ABI 1.0's " +
                         std::to_string(kAbi10Size) + " was written");
    }
  }
}

HALO_CTS_CASE("dispatch.executable.bad_bytes", kNeedDispatch,
              "garbage, empty and truncated executables in the device's format are INVALID_ARGUMENT naming halo_executable_create") {
  KernelFile file = find_kernel(ctx, "saxpy");
  const std::vector<uint8_t> original = file.bytes;
  const std::vector<std::vector<uint8_t>> bad = {
      std::vector<uint8_t>(256, 0xa7),
      {},
      std::vector<uint8_t>(original.begin(), original.begin() + original.size() / 2)};
  for (const std::vector<uint8_t>& bytes : bad) {
    halo_executable_params_t params = {};
    params.struct_size = sizeof(params);
    params.format = file.format.c_str();
    params.data = bytes.empty() ? original.data() : bytes.data();
    params.data_size = bytes.size();
    ExecutableRef executable;
    CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, executable.out()),
                       "halo_executable_create");
    CTS_ASSERT(executable.get() == nullptr);
  }
  // The device still creates the real one.
  CTS_ASSERT(create_executable(ctx.device(), file).get() != nullptr);
}

HALO_CTS_CASE("dispatch.executable.unknown_format", kNeedDispatch,
              "a real kernel under a format the device does not list (or \"\") is INVALID_ARGUMENT naming halo_executable_create") {
  const KernelFile file = find_kernel(ctx, "saxpy");
  const std::vector<std::string> offered = executable_formats(ctx.capabilities());
  for (const char* format : {"cts-no-such-format", "", "spirv", "opencl-c", "spirv-kernel", "cpu-so"}) {
    if (std::find(offered.begin(), offered.end(), format) != offered.end()) continue;
    halo_executable_params_t params = {};
    params.struct_size = sizeof(params);
    params.format = format;
    params.data = file.bytes.data();
    params.data_size = file.bytes.size();
    ExecutableRef executable;
    CTS_ASSERT_INVALID(halo_executable_create(ctx.device(), &params, executable.out()),
                       "halo_executable_create");
    CTS_ASSERT(executable.get() == nullptr);
  }
}

}  // namespace
