// Buffers of the cpu device: capabilities, every memory type, mapping,
// alignment, range checks and allocation failures.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using BufferTest = WorkTest;

constexpr halo_memory_type_t kEveryMemoryType =
    HALO_MEMORY_TYPE_DEVICE_LOCAL | HALO_MEMORY_TYPE_HOST_VISIBLE |
    HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED;

halo_device_capabilities_t capabilities(halo_device_t* device) {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  HALO_EXPECT_OK(halo_device_query_capabilities(device, &caps));
  return caps;
}

halo_buffer_params_t params_of(uint64_t size,
                               halo_memory_type_t memory_type = kHostMemory,
                               halo_buffer_usage_t usage = kAllUsage) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = usage;
  params.size = size;
  return params;
}

Status allocate(halo_device_t* device, const halo_buffer_params_t& params) {
  halo_buffer_t* buffer = nullptr;
  Status status(halo_buffer_allocate(device, &params, &buffer));
  EXPECT_EQ(buffer == nullptr, !status.ok());
  halo_buffer_release(buffer);
  return status;
}

void expect_status(const Status& status, halo_status_code_t code,
                   const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.describe();
  EXPECT_NE(status.message().find(words), std::string::npos)
      << status.describe();
}

TEST_F(BufferTest, CapabilitiesOfferBuffersCommandBuffersAndDispatch) {
  halo_device_capabilities_t caps = capabilities(device());
  EXPECT_NE(caps.features & HALO_DEVICE_FEATURE_BUFFERS, 0u);
  EXPECT_NE(caps.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS, 0u);
  EXPECT_NE(caps.features & HALO_DEVICE_FEATURE_DISPATCH, 0u);
  EXPECT_EQ(caps.memory_types, kEveryMemoryType);
  EXPECT_EQ(caps.min_buffer_alignment, 64u);
  // Half of the physical memory: far below the "huge" sizes tests use.
  EXPECT_GT(caps.max_buffer_size, uint64_t{1} << 24);
  EXPECT_LT(caps.max_buffer_size, uint64_t{1} << 62);
  EXPECT_STREQ(caps.executable_formats, "cpu-so");
}

// Every non-empty combination of memory types allocates; exactly the
// HOST_VISIBLE ones map, and what is written through a mapping reads back.
TEST_F(BufferTest, EveryMemoryTypeAllocatesAndHostVisibleOnesMap) {
  for (halo_memory_type_t type = 1; type <= kEveryMemoryType; ++type) {
    SCOPED_TRACE(type);
    BufferPtr buffer = make_buffer(256, kAllUsage, type);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(halo_buffer_size(buffer.get()), 256u);
    void* pointer = nullptr;
    Status status(halo_buffer_map_range(buffer.get(), 0, 256, &pointer));
    if ((type & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
      expect_status(status, HALO_STATUS_FAILED_PRECONDITION, "HOST_VISIBLE");
      continue;
    }
    ASSERT_TRUE(status.ok()) << status.describe();
    auto* bytes = static_cast<uint8_t*>(pointer);
    for (int i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i ^ type);
    HALO_EXPECT_OK(halo_buffer_flush_range(buffer.get(), 0, 256));
    HALO_EXPECT_OK(halo_buffer_unmap_range(buffer.get(), 0, 256));
    void* again = nullptr;
    HALO_ASSERT_OK(halo_buffer_map_range(buffer.get(), 0, HALO_WHOLE_BUFFER,
                                         &again));
    HALO_EXPECT_OK(halo_buffer_invalidate_range(buffer.get(), 0, 256));
    auto* read = static_cast<const uint8_t*>(again);
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(read[i], static_cast<uint8_t>(i ^ type)) << i;
    }
  }
}

TEST_F(BufferTest, MemoryIsAlignedAsAsked) {
  for (uint64_t alignment : {uint64_t{0}, uint64_t{1}, uint64_t{8},
                             uint64_t{64}, uint64_t{256}, uint64_t{4096},
                             uint64_t{1} << 21}) {
    SCOPED_TRACE(alignment);
    halo_buffer_params_t params = params_of(100);
    params.alignment = alignment;
    halo_buffer_t* buffer = nullptr;
    HALO_ASSERT_OK(halo_buffer_allocate(device(), &params, &buffer));
    BufferPtr owner(buffer);
    auto address = reinterpret_cast<uintptr_t>(map<void>(buffer));
    EXPECT_EQ(address % 64, 0u);  // The device's minimum.
    if (alignment > 0) {
      EXPECT_EQ(address % alignment, 0u);
    }
  }
}

TEST_F(BufferTest, MapRangeReturnsTheOffsetAddress) {
  BufferPtr buffer = make_buffer(1024);
  auto* base = map<uint8_t>(buffer.get());
  void* pointer = nullptr;
  HALO_ASSERT_OK(halo_buffer_map_range(buffer.get(), 96, 32, &pointer));
  EXPECT_EQ(pointer, base + 96);
  HALO_ASSERT_OK(
      halo_buffer_map_range(buffer.get(), 1000, HALO_WHOLE_BUFFER, &pointer));
  EXPECT_EQ(pointer, base + 1000);
  // An empty range at the very end is still inside.
  HALO_EXPECT_OK(halo_buffer_map_range(buffer.get(), 1024, 0, &pointer));
}

TEST_F(BufferTest, RangesPastTheEndAreOutOfRange) {
  BufferPtr buffer = make_buffer(1024);
  void* pointer = nullptr;
  expect_status(Status(halo_buffer_map_range(buffer.get(), 1025, 0, &pointer)),
                HALO_STATUS_OUT_OF_RANGE, "halo_buffer_map_range");
  expect_status(Status(halo_buffer_map_range(buffer.get(), 1000, 25, &pointer)),
                HALO_STATUS_OUT_OF_RANGE, "halo_buffer_map_range");
  // offset + length would wrap around 2^64: still out of range.
  expect_status(
      Status(halo_buffer_map_range(buffer.get(), 8, UINT64_MAX - 4, &pointer)),
      HALO_STATUS_OUT_OF_RANGE, "halo_buffer_map_range");
  expect_status(Status(halo_buffer_unmap_range(buffer.get(), 0, 1025)),
                HALO_STATUS_OUT_OF_RANGE, "halo_buffer_unmap_range");
  expect_status(Status(halo_buffer_flush_range(buffer.get(), 2048, 1)),
                HALO_STATUS_OUT_OF_RANGE, "halo_buffer_flush_range");
  expect_status(Status(halo_buffer_invalidate_range(buffer.get(), 1024, 1)),
                HALO_STATUS_OUT_OF_RANGE, "halo_buffer_invalidate_range");
  // Within the buffer, an unmap is judged by the mappings open.
  HALO_EXPECT_OK(halo_buffer_map_range(buffer.get(), 0, HALO_WHOLE_BUFFER, &pointer));
  HALO_EXPECT_OK(halo_buffer_unmap_range(buffer.get(), 0, HALO_WHOLE_BUFFER));
  HALO_EXPECT_OK(halo_buffer_flush_range(buffer.get(), 1024, 0));
  HALO_EXPECT_OK(halo_buffer_invalidate_range(buffer.get(), 512, 512));
}

TEST_F(BufferTest, BadParametersAreInvalidArguments) {
  expect_status(allocate(device(), params_of(64, 0)),
                HALO_STATUS_INVALID_ARGUMENT, "memory_type");
  expect_status(allocate(device(), params_of(64, 1u << 4)),
                HALO_STATUS_INVALID_ARGUMENT, "memory_type");
  expect_status(allocate(device(), params_of(64, kHostMemory, 0)),
                HALO_STATUS_INVALID_ARGUMENT, "usage");
  expect_status(allocate(device(), params_of(64, kHostMemory, 1u << 9)),
                HALO_STATUS_INVALID_ARGUMENT, "usage");
  expect_status(allocate(device(), params_of(0)), HALO_STATUS_INVALID_ARGUMENT,
                "size");
  halo_buffer_params_t odd = params_of(64);
  odd.alignment = 48;
  expect_status(allocate(device(), odd), HALO_STATUS_INVALID_ARGUMENT,
                "alignment");
}

TEST_F(BufferTest, HugeRequestsAreResourceExhausted) {
  const uint64_t max = capabilities(device()).max_buffer_size;
  expect_status(allocate(device(), params_of(uint64_t{1} << 62)),
                HALO_STATUS_RESOURCE_EXHAUSTED, "max_buffer_size");
  expect_status(allocate(device(), params_of(max + 1)),
                HALO_STATUS_RESOURCE_EXHAUSTED, "max_buffer_size");
  halo_buffer_params_t aligned = params_of(64);
  aligned.alignment = uint64_t{1} << 40;
  expect_status(allocate(device(), aligned), HALO_STATUS_RESOURCE_EXHAUSTED,
                "alignment");
}

// Caps the address space of this process 256 MiB above what it uses, then
// allocates |size| bytes (more than that): returns 0 when that is
// RESOURCE_EXHAUSTED. The margin is for the device's threads, which may
// touch memory of their own for the first time after the cap: glibc
// reserves 128 MiB of address space for a thread's first malloc arena, and
// with a 64 MiB margin a thread then aborted on its thread-local data (1
// run in 40 here).
int allocate_with_capped_memory(halo_device_t* device, uint64_t size) {
  long pages = 0;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 2;
  bool read = std::fscanf(statm, "%ld", &pages) == 1;
  std::fclose(statm);
  if (!read) return 2;
  rlim_t cap = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) +
               (rlim_t{256} << 20);
  rlimit limit = {cap, cap};
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 3;
  Status status = allocate(device, params_of(size));
  return status.code() == HALO_STATUS_RESOURCE_EXHAUSTED ? 0 : 4;
}

// An allowed size the allocator cannot provide is RESOURCE_EXHAUSTED too,
// never an abort. Run in a child process whose address space is capped
// just above what it already uses.
TEST_F(BufferTest, FailedAllocationOfAnAllowedSizeIsResourceExhausted) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer allocators abort when memory runs out";
#else
  const uint64_t size = uint64_t{1} << 30;
  ASSERT_LE(size, capabilities(device()).max_buffer_size);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(allocate_with_capped_memory(device(), size)),
              ::testing::ExitedWithCode(0), "");
#endif
}

// A buffer retains its device: it stays usable after the device's last
// outside reference is gone.
TEST_F(BufferTest, BufferKeepsItsDeviceAlive) {
  DevicePtr other = make_device();
  BufferPtr buffer = make_buffer(128, kAllUsage, kHostMemory, other.get());
  other.reset();
  auto* bytes = map<uint8_t>(buffer.get());
  bytes[127] = 7;
  EXPECT_EQ(halo_buffer_size(buffer.get()), 128u);
}

}  // namespace
}  // namespace halo_cpu_test
