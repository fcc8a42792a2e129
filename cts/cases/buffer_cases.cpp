// buffer.*: allocating every memory type the device offers, mapping,
// flush and invalidate, sizes and alignment, and the status of each bad
// request (the rules are listed in plugins/sdk/include/halo/sdk/commands.hpp).
// Cases that read memory the host cannot map go through a device copy and
// need command buffers and queues too.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr halo_memory_type_t kKnownMemoryTypes =
    HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE |
    HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED;

std::string hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%x", value);
  return text;
}

bool host_visible(halo_memory_type_t type) {
  return (type & HALO_MEMORY_TYPE_HOST_VISIBLE) != 0;
}

// Every non-zero combination of the device's memory types that one of its
// memory types offers whole: each single bit (which must allocate, since the
// device reports it), and HOST_VISIBLE|HOST_COHERENT and the like. The
// capabilities report only the union of the bits, so a combination that no
// single memory type has (DEVICE_LOCAL|HOST_CACHED on most GPUs) may be
// refused, with INVALID_ARGUMENT and a message; it is left out then. Fails
// the case when the device reports buffers but no memory type, refuses a
// single bit, or refuses a combination with another code.
std::vector<halo_memory_type_t> memory_type_combinations(Context& ctx) {
  const halo_memory_type_t offered = ctx.capabilities().memory_types;
  CTS_ASSERT_MSG(offered != 0, "a device with buffers reports its memory types");
  std::vector<halo_memory_type_t> combinations;
  for (halo_memory_type_t type = 1; type <= kKnownMemoryTypes; ++type) {
    if ((type & ~offered) != 0) continue;
    if ((type & (type - 1)) == 0) {
      combinations.push_back(type);  // A single bit: it must allocate.
      continue;
    }
    halo_buffer_params_t params = {};
    params.struct_size = sizeof(params);
    params.memory_type = type;
    params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET;
    params.size = 256;
    BufferRef probe;
    halo_status_t status = halo_buffer_allocate(ctx.device(), &params, probe.out());
    if (status == nullptr) {
      combinations.push_back(type);
      continue;
    }
    const bool refused = halo_status_code(status) == HALO_STATUS_INVALID_ARGUMENT &&
                         halo_status_message(status)[0] != '\0';
    CTS_ASSERT_MSG(refused, "halo_buffer_allocate(memory_type " + memory_type_text(type) +
                                ") returned " + take_status_text(status) +
                                ", expected OK or INVALID_ARGUMENT for a combination "
                                "no memory type offers");
    halo_status_free(status);
  }
  return combinations;
}

// |size| bytes from the case's seeded generator.
std::vector<uint8_t> random_bytes(Context& ctx, size_t size) {
  std::mt19937_64 rng = make_rng(ctx);
  std::vector<uint8_t> bytes(size);
  for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng() >> 56);
  return bytes;
}

halo_buffer_params_t buffer_params(halo_memory_type_t memory_type,
                                   halo_buffer_usage_t usage, uint64_t size) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = usage;
  params.size = size;
  return params;
}

// Fails the case unless |status| has |code| and a message naming
// |function|; frees it. |what| says which request it was.
void check_status(halo_status_t status, halo_status_code_t code, const char* function,
                  const std::string& what) {
  const bool named = std::strstr(halo_status_message(status), function) != nullptr;
  const halo_status_code_t actual = halo_status_code(status);
  const std::string text = take_status_text(status);
  CTS_ASSERT_MSG(actual == code && named, std::string(function) + ", " + what + ": got " + text +
                                              ", expected " + halo_status_code_name(code) +
                                              " naming the function");
}

// Asserts that allocating with |params| returns |code| (with a message that
// names halo_buffer_allocate) and no buffer.
void check_allocate_fails(Context& ctx, const halo_buffer_params_t& params,
                          halo_status_code_t code, const std::string& what) {
  BufferRef buffer;
  check_status(halo_buffer_allocate(ctx.device(), &params, buffer.out()), code,
               "halo_buffer_allocate", what);
  CTS_ASSERT_MSG(buffer.get() == nullptr, what + ": a failed allocation returned a buffer");
}

// --- allocation -----------------------------------------------------------------------

HALO_CTS_CASE("buffer.allocate.every_memory_type", kNeedBuffers,
              "every memory type bit the device reports allocates, and so does every combination of them, unless refused with INVALID_ARGUMENT as no single memory type has it") {
  for (halo_memory_type_t type : memory_type_combinations(ctx)) {
    const halo_buffer_usage_t usage =
        HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
        HALO_BUFFER_USAGE_DISPATCH_STORAGE |
        (host_visible(type) ? HALO_BUFFER_USAGE_MAPPING : 0);
    BufferRef buffer = allocate_buffer(ctx.device(), 4096, type, usage);
    CTS_ASSERT_MSG(halo_buffer_size(buffer.get()) == 4096u, memory_type_text(type));
  }
}

HALO_CTS_CASE("buffer.allocate.sizes", kNeedBuffers,
              "buffers of 1, 3, 4096 and 1,000,003 bytes report exactly that size, and their last byte maps") {
  const halo_memory_type_t type = host_memory_type(ctx);
  for (uint64_t size : {uint64_t{1}, uint64_t{3}, uint64_t{4096}, uint64_t{1000003}}) {
    BufferRef buffer = allocate_buffer(ctx.device(), size, type);
    CTS_ASSERT_EQ(halo_buffer_size(buffer.get()), size);
    const uint8_t last = 0x5a;
    write_bytes(buffer.get(), size - 1, &last, 1);
    CTS_ASSERT_EQ(+read_bytes(buffer.get(), size - 1, 1)[0], +last);
  }
}

HALO_CTS_CASE("buffer.allocate.many", kNeedBuffers,
              "1,000 small buffers live at once, each keeping its own contents") {
  constexpr uint32_t kCount = 1000;
  std::vector<BufferRef> buffers;
  for (uint32_t i = 0; i < kCount; ++i) {
    buffers.push_back(host_buffer(ctx, 16));
    write_values<uint32_t>(buffers.back().get(), {i, ~i, i * 7, 0xc0ffee00u + i});
  }
  for (uint32_t i = 0; i < kCount; ++i) {
    CTS_ASSERT_VALUES(read_values<uint32_t>(buffers[i].get(), 4),
                      (std::vector<uint32_t>{i, ~i, i * 7, 0xc0ffee00u + i}));
  }
}

HALO_CTS_CASE("buffer.allocate.zero_size", kNeedBuffers,
              "a size of 0 is INVALID_ARGUMENT naming halo_buffer_allocate, with no buffer") {
  check_allocate_fails(ctx, buffer_params(host_memory_type(ctx), kAllBufferUsage, 0),
                       HALO_STATUS_INVALID_ARGUMENT, "size 0");
}

HALO_CTS_CASE("buffer.allocate.too_large", kNeedBuffers,
              "sizes of 2^62, max_buffer_size + 1 and UINT64_MAX are RESOURCE_EXHAUSTED, with no buffer") {
  const halo_memory_type_t type = host_memory_type(ctx);
  const uint64_t max = ctx.capabilities().max_buffer_size;
  std::vector<uint64_t> sizes = {uint64_t{1} << 62, UINT64_MAX};
  if (max < UINT64_MAX) sizes.push_back(max + 1);
  for (uint64_t size : sizes) {
    check_allocate_fails(ctx, buffer_params(type, kAllBufferUsage, size),
                         HALO_STATUS_RESOURCE_EXHAUSTED, "size " + std::to_string(size));
  }
}

HALO_CTS_CASE("buffer.allocate.bad_memory_type", kNeedBuffers,
              "memory_type 0, an unknown bit, or a bit the device does not offer is INVALID_ARGUMENT") {
  const halo_memory_type_t offered = ctx.capabilities().memory_types;
  std::vector<halo_memory_type_t> bad = {0, 1u << 8, 1u << 31,
                                         host_memory_type(ctx) | (1u << 9)};
  for (halo_memory_type_t bit = 1; bit <= HALO_MEMORY_TYPE_HOST_CACHED; bit <<= 1) {
    if ((offered & bit) == 0) bad.push_back(bit);
  }
  for (halo_memory_type_t type : bad) {
    check_allocate_fails(ctx, buffer_params(type, kAllBufferUsage, 256),
                         HALO_STATUS_INVALID_ARGUMENT,
                         "memory_type " + hex(type));
  }
}

HALO_CTS_CASE("buffer.allocate.bad_usage", kNeedBuffers,
              "usage 0 or with an unknown bit is INVALID_ARGUMENT") {
  const halo_memory_type_t type = host_memory_type(ctx);
  for (halo_buffer_usage_t usage : {0u, 1u << 4, 1u << 31, kAllBufferUsage | (1u << 9)}) {
    check_allocate_fails(ctx, buffer_params(type, usage, 256), HALO_STATUS_INVALID_ARGUMENT,
                         "usage " + hex(usage));
  }
}

HALO_CTS_CASE("buffer.allocate.alignment", kNeedBuffers,
              "a mapped HOST_VISIBLE buffer starts at a multiple of its alignment (default: min_buffer_alignment, a power of two)") {
  const uint64_t minimum = ctx.capabilities().min_buffer_alignment;
  CTS_ASSERT_MSG(minimum >= 1 && (minimum & (minimum - 1)) == 0,
                 "min_buffer_alignment " + std::to_string(minimum));
  for (uint64_t alignment : {uint64_t{0}, uint64_t{16}, uint64_t{256}, uint64_t{4096},
                             uint64_t{65536}}) {
    BufferRef buffer =
        allocate_buffer(ctx.device(), 100, host_memory_type(ctx), kAllBufferUsage, alignment);
    void* pointer = nullptr;
    CTS_ASSERT_OK(halo_buffer_map_range(buffer.get(), 0, HALO_WHOLE_BUFFER, &pointer));
    const uint64_t expected = alignment == 0 ? minimum : std::max(alignment, minimum);
    CTS_ASSERT_MSG(reinterpret_cast<uintptr_t>(pointer) % expected == 0,
                   "alignment " + std::to_string(alignment) + ": mapped at " + to_text(pointer));
    CTS_ASSERT_OK(halo_buffer_unmap_range(buffer.get(), 0, HALO_WHOLE_BUFFER));
  }
}

// --- mapping ---------------------------------------------------------------------------

HALO_CTS_CASE("buffer.map.write_read", kNeedBuffers,
              "every HOST_VISIBLE combination: bytes written through a whole mapping read back whole and through sub-ranges") {
  constexpr size_t kSize = 65536;
  const std::vector<uint8_t> data = random_bytes(ctx, kSize);
  for (halo_memory_type_t type : memory_type_combinations(ctx)) {
    if (!host_visible(type)) continue;
    BufferRef buffer = allocate_buffer(ctx.device(), kSize, type);
    write_bytes(buffer.get(), 0, data.data(), kSize);
    CTS_ASSERT_VALUES(read_bytes(buffer.get(), 0, kSize), data);
    // A mapping at an offset points at that offset.
    const std::vector<uint8_t> middle(data.begin() + 1001, data.begin() + 1101);
    CTS_ASSERT_VALUES(read_bytes(buffer.get(), 1001, 100), middle);
    const std::vector<uint8_t> tail(data.end() - 7, data.end());
    CTS_ASSERT_VALUES(read_bytes(buffer.get(), kSize - 7, 7), tail);
  }
}

HALO_CTS_CASE("buffer.map.whole_buffer", kNeedBuffers,
              "HALO_WHOLE_BUFFER maps from the offset to the end, and flush, invalidate and unmap accept it") {
  constexpr size_t kSize = 4096;
  BufferRef buffer = host_buffer(ctx, kSize);
  std::vector<uint8_t> data(kSize);
  std::iota(data.begin(), data.end(), uint8_t{3});
  void* pointer = nullptr;
  CTS_ASSERT_OK(halo_buffer_map_range(buffer.get(), 0, HALO_WHOLE_BUFFER, &pointer));
  std::memcpy(pointer, data.data(), kSize);
  CTS_ASSERT_OK(halo_buffer_flush_range(buffer.get(), 0, HALO_WHOLE_BUFFER));
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer.get(), 0, HALO_WHOLE_BUFFER));
  CTS_ASSERT_OK(halo_buffer_map_range(buffer.get(), 4000, HALO_WHOLE_BUFFER, &pointer));
  CTS_ASSERT_OK(halo_buffer_invalidate_range(buffer.get(), 4000, HALO_WHOLE_BUFFER));
  std::vector<uint8_t> tail(96);
  std::memcpy(tail.data(), pointer, tail.size());
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer.get(), 4000, HALO_WHOLE_BUFFER));
  CTS_ASSERT_VALUES(tail, std::vector<uint8_t>(data.begin() + 4000, data.end()));
}

HALO_CTS_CASE("buffer.map.out_of_range", kNeedBuffers,
              "maps, flushes and invalidates past the end (or overflowing offset + length) are OUT_OF_RANGE naming the function, with no pointer") {
  constexpr uint64_t kSize = 1024;
  BufferRef buffer = host_buffer(ctx, kSize);
  struct Range {
    uint64_t offset, length;
  };
  const Range kBad[] = {{kSize + 1, 0},       {kSize + 1, HALO_WHOLE_BUFFER},
                        {0, kSize + 1},       {kSize - 4, 8},
                        {kSize, 1},           {8, UINT64_MAX - 4},
                        {UINT64_MAX - 1, 16}, {UINT64_MAX, HALO_WHOLE_BUFFER}};
  for (const Range& range : kBad) {
    const std::string what =
        "[" + std::to_string(range.offset) + ", +" + std::to_string(range.length) + ")";
    void* pointer = reinterpret_cast<void*>(0x1);
    check_status(halo_buffer_map_range(buffer.get(), range.offset, range.length, &pointer),
                 HALO_STATUS_OUT_OF_RANGE, "halo_buffer_map_range", what);
    CTS_ASSERT_MSG(pointer == nullptr, "map " + what + " left a pointer");
    check_status(halo_buffer_flush_range(buffer.get(), range.offset, range.length),
                 HALO_STATUS_OUT_OF_RANGE, "halo_buffer_flush_range", what);
    check_status(halo_buffer_invalidate_range(buffer.get(), range.offset, range.length),
                 HALO_STATUS_OUT_OF_RANGE, "halo_buffer_invalidate_range", what);
  }
  // The buffer still maps in range afterwards.
  const uint32_t value = 0xfeedf00d;
  write_bytes(buffer.get(), kSize - 4, &value, 4);
  CTS_ASSERT_VALUES(read_values<uint32_t>(buffer.get(), 1, kSize - 4), std::vector<uint32_t>{value});
}

HALO_CTS_CASE("buffer.map.not_host_visible", kNeedBuffers,
              "mapping, unmapping, flushing or invalidating a buffer of each offered combination without HOST_VISIBLE is FAILED_PRECONDITION naming the function") {
  size_t checked = 0;
  for (halo_memory_type_t type : memory_type_combinations(ctx)) {
    if (host_visible(type)) continue;
    BufferRef buffer = allocate_buffer(ctx.device(), 256, type,
                                       HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                                           HALO_BUFFER_USAGE_TRANSFER_TARGET);
    void* pointer = reinterpret_cast<void*>(0x1);
    check_status(halo_buffer_map_range(buffer.get(), 0, 256, &pointer),
                 HALO_STATUS_FAILED_PRECONDITION, "halo_buffer_map_range", memory_type_text(type));
    CTS_ASSERT(pointer == nullptr);
    check_status(halo_buffer_unmap_range(buffer.get(), 0, 256), HALO_STATUS_FAILED_PRECONDITION,
                 "halo_buffer_unmap_range", memory_type_text(type));
    check_status(halo_buffer_flush_range(buffer.get(), 0, 256), HALO_STATUS_FAILED_PRECONDITION,
                 "halo_buffer_flush_range", memory_type_text(type));
    check_status(halo_buffer_invalidate_range(buffer.get(), 0, 256),
                 HALO_STATUS_FAILED_PRECONDITION, "halo_buffer_invalidate_range",
                 memory_type_text(type));
    ++checked;
  }
  // Only a device whose memory is all HOST_VISIBLE has nothing to check
  // (every other bit alone is a combination without it).
  CTS_ASSERT(checked > 0 || ctx.capabilities().memory_types == HALO_MEMORY_TYPE_HOST_VISIBLE);
}

HALO_CTS_CASE("buffer.unmap.not_mapped", kNeedBuffers,
              "an unmap that names no open mapping (never mapped, a part of one, or already unmapped) is FAILED_PRECONDITION naming halo_buffer_unmap_range, and leaves real mappings open") {
  BufferRef buffer = host_buffer(ctx, 1024);
  check_status(halo_buffer_unmap_range(buffer.get(), 0, 64), HALO_STATUS_FAILED_PRECONDITION,
               "halo_buffer_unmap_range", "never mapped");
  void* pointer = nullptr;
  CTS_ASSERT_OK(halo_buffer_map_range(buffer.get(), 0, 64, &pointer));
  check_status(halo_buffer_unmap_range(buffer.get(), 0, 32), HALO_STATUS_FAILED_PRECONDITION,
               "halo_buffer_unmap_range", "part of a mapping");
  // The same range mapped twice is two mappings, each ended once.
  void* again = nullptr;
  CTS_ASSERT_OK(halo_buffer_map_range(buffer.get(), 0, 64, &again));
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer.get(), 0, 64));
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer.get(), 0, 64));
  check_status(halo_buffer_unmap_range(buffer.get(), 0, 64), HALO_STATUS_FAILED_PRECONDITION,
               "halo_buffer_unmap_range", "already unmapped");
}

// --- device access -----------------------------------------------------------------------

HALO_CTS_CASE("buffer.transfer.every_memory_type", kNeedBuffers | kNeedCommandBuffers | kNeedQueues,
              "every memory type combination: bytes recorded with update read back through a copy to a host buffer") {
  constexpr size_t kSize = 8192;
  const std::vector<uint8_t> data = random_bytes(ctx, kSize);
  for (halo_memory_type_t type : memory_type_combinations(ctx)) {
    BufferRef buffer = allocate_buffer(ctx.device(), kSize, type,
                                       HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                                           HALO_BUFFER_USAGE_TRANSFER_TARGET);
    CommandBufferRef commands = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_update(commands.get(), data.data(), buffer.get(), 0, kSize));
    end_and_execute(ctx, commands.get());
    CTS_ASSERT_MSG(read_through_copy(ctx, buffer.get(), 0, kSize) == data,
                   memory_type_text(type) + ": the copy read back other bytes");
  }
}

HALO_CTS_CASE("buffer.transfer.flush_invalidate", kNeedBuffers | kNeedCommandBuffers | kNeedQueues,
              "HOST_VISIBLE memory without HOST_COHERENT: host writes flushed reach a device copy, whose result reads back after invalidate") {
  constexpr size_t kSize = 4096;
  const std::vector<uint8_t> data = random_bytes(ctx, kSize);
  for (halo_memory_type_t type : memory_type_combinations(ctx)) {
    if (!host_visible(type) || (type & HALO_MEMORY_TYPE_HOST_COHERENT) != 0) continue;
    BufferRef source = allocate_buffer(ctx.device(), kSize, type);
    BufferRef target = allocate_buffer(ctx.device(), kSize, type);
    void* pointer = nullptr;
    CTS_ASSERT_OK(halo_buffer_map_range(source.get(), 0, kSize, &pointer));
    std::memcpy(pointer, data.data(), kSize);
    // Two flushes over halves: ranges need not cover the mapping at once.
    CTS_ASSERT_OK(halo_buffer_flush_range(source.get(), 0, kSize / 2));
    CTS_ASSERT_OK(halo_buffer_flush_range(source.get(), kSize / 2, kSize / 2));
    CTS_ASSERT_OK(halo_buffer_unmap_range(source.get(), 0, kSize));
    CommandBufferRef commands = begin_commands(ctx.device());
    CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), source.get(), 0, target.get(), 0, kSize));
    end_and_execute(ctx, commands.get());
    CTS_ASSERT_OK(halo_buffer_map_range(target.get(), 0, kSize, &pointer));
    CTS_ASSERT_OK(halo_buffer_invalidate_range(target.get(), 0, kSize));
    std::vector<uint8_t> result(kSize);
    std::memcpy(result.data(), pointer, kSize);
    CTS_ASSERT_OK(halo_buffer_unmap_range(target.get(), 0, kSize));
    CTS_ASSERT_MSG(result == data, memory_type_text(type) + ": the copy read back other bytes");
  }
}

}  // namespace
