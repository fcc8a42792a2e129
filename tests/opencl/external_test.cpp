// Host allocations imported as opencl buffers (external.h, ABI 1.3): the
// buffer is the application's memory, so device work lands in it and reads
// it without a map; it is an ordinary buffer to every command and to
// mappings; its release waits for the work naming it and never frees the
// memory; the same memory may be imported twice; libhalo refuses what is
// not aligned. The device offers the import only on unified memory.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

// Host memory of std::aligned_alloc, freed with std::free.
struct FreeHost {
  void operator()(void* pointer) const noexcept { std::free(pointer); }
};
using HostMemoryPtr = std::unique_ptr<uint8_t, FreeHost>;

constexpr halo_buffer_usage_t kEveryUsage =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;

// Adds one to each of the first n words of data.
constexpr char kIncrementSource[] =
    "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void inc(\n"
    "    __global uint* data, uint n) {\n"
    "  uint i = (uint)get_group_id(0) * 64u + (uint)get_local_id(0);\n"
    "  if (i < n) data[i] += 1u;\n"
    "}\n";

// The capabilities are the same on every device; the other cases skip
// where the device imports no host allocation.
class ExternalTest : public OpenClTest {
 protected:
  bool imports_host() const {
    return (capabilities().buffer_import_types &
            HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) != 0;
  }
  uint64_t alignment() const { return capabilities().host_allocation_alignment; }

  // |size| bytes at the device's host_allocation_alignment, set to |byte|.
  HostMemoryPtr allocate_host(size_t size, uint8_t byte) {
    void* memory = std::aligned_alloc(static_cast<size_t>(alignment()), size);
    if (memory != nullptr) std::memset(memory, byte, size);
    return HostMemoryPtr(static_cast<uint8_t*>(memory));
  }

  // Imports |size| bytes at |pointer| (a handle of |handle_size| bytes,
  // |size| when 0) as a HOST_VISIBLE buffer with every usage.
  halo_status_t import(void* pointer, uint64_t size, BufferPtr* out,
                       uint64_t handle_size = 0) {
    halo_buffer_params_t params = {};
    params.struct_size = sizeof(params);
    params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
    params.usage = kEveryUsage;
    params.size = size;
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
    handle.fd = -1;
    handle.host_pointer = pointer;
    handle.size = handle_size != 0 ? handle_size : size;
    halo_buffer_t* buffer = nullptr;
    halo_status_t status = halo_buffer_import(device(), &params, &handle,
                                              &buffer);
    out->reset(buffer);
    return status;
  }

  // Submits |command_buffer| alone and waits for it, and for the device to
  // release it, so that host memory imported before may be freed once its
  // buffers are released (external.h).
  void run(halo_command_buffer_t* command_buffer) {
    SemaphorePtr done = make_semaphore();
    HALO_ASSERT_OK(submit(command_buffer, {}, {}, {done.get()}, {1}));
    HALO_ASSERT_OK(halo_semaphore_wait(done.get(), 1, deadline_in_ms(20000)));
    HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  }
};

#define HALO_SKIP_WITHOUT_HOST_IMPORT()                                   \
  do {                                                                    \
    if (!imports_host()) {                                                \
      GTEST_SKIP() << "the device imports no HOST_ALLOCATION (no unified " \
                      "memory)";                                          \
    }                                                                     \
  } while (0)

TEST_F(ExternalTest, CapabilitiesOfferHostImportOnUnifiedMemoryOnly) {
  const halo_device_capabilities_t& caps = capabilities();
  EXPECT_EQ(caps.buffer_export_types, 0u);
  EXPECT_EQ(caps.semaphore_export_types, 0u);
  EXPECT_EQ(caps.semaphore_import_types, 0u);
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  HALO_ASSERT_OK(halo_device_query_info(device(), &info));
  if (info.type == HALO_DEVICE_TYPE_GPU_DISCRETE) {
    // Its USE_HOST_PTR memory may be a copy written back only at a map.
    EXPECT_EQ(caps.buffer_import_types, 0u);
  } else if (info.type == HALO_DEVICE_TYPE_CPU ||
             info.type == HALO_DEVICE_TYPE_GPU_INTEGRATED) {
    EXPECT_EQ(caps.buffer_import_types,
              HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  }
  if (!imports_host()) {
    EXPECT_EQ(caps.host_allocation_alignment, 0u);
    return;
  }
  const uint64_t alignment = caps.host_allocation_alignment;
  EXPECT_EQ(alignment & (alignment - 1), 0u) << alignment;
  EXPECT_GE(alignment, 4096u);
  EXPECT_EQ(alignment % caps.min_buffer_alignment, 0u) << alignment;
}

TEST_F(ExternalTest, ExportsNothing) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = kEveryUsage;
  params.flags = HALO_BUFFER_FLAG_EXPORTABLE;
  params.size = 4096;
  halo_buffer_t* exportable = nullptr;
  Status allocated(halo_buffer_allocate(device(), &params, &exportable));
  EXPECT_EQ(allocated.code(), HALO_STATUS_UNIMPLEMENTED) << allocated.describe();
  EXPECT_EQ(exportable, nullptr);
  BufferPtr buffer = make_buffer(4096);
  halo_external_handle_t handle = {};
  handle.struct_size = sizeof(handle);
  Status exported(halo_buffer_export(
      buffer.get(), HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle));
  EXPECT_EQ(exported.code(), HALO_STATUS_UNIMPLEMENTED) << exported.describe();
}

TEST_F(ExternalTest, DeviceFillAndCopyLandInTheHostMemory) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment()) * 2, half = size / 2;
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr imported;
  HALO_ASSERT_OK(import(memory.get(), size, &imported));
  BufferPtr source = make_buffer(half);
  write(source.get(), std::vector<uint8_t>(half, 0x3C));
  CommandBufferPtr command_buffer = begin_command_buffer();
  const uint32_t pattern = 0xA5A5A5A5;
  HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), imported.get(),
                                          0, half, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_copy(command_buffer.get(), source.get(), 0,
                                          imported.get(), half, half));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  run(command_buffer.get());
  // Read straight from the host memory, with no map: the zero-copy promise.
  const uint8_t* bytes = memory.get();
  for (size_t i = 0; i < size; ++i) {
    ASSERT_EQ(bytes[i], i < half ? 0xA5 : 0x3C) << "byte " << i;
  }
}

TEST_F(ExternalTest, HostWritesReachDeviceCopies) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment());
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr imported;
  HALO_ASSERT_OK(import(memory.get(), size, &imported));
  // Written after the import, straight into the memory, before the work.
  std::vector<uint8_t> expected(size);
  for (size_t i = 0; i < size; ++i) expected[i] = static_cast<uint8_t>(i * 7);
  std::memcpy(memory.get(), expected.data(), size);
  BufferPtr target = make_buffer(size);
  CommandBufferPtr command_buffer = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_copy(command_buffer.get(), imported.get(),
                                          0, target.get(), 0, size));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  run(command_buffer.get());
  EXPECT_EQ(read(target.get(), size), expected);
}

TEST_F(ExternalTest, MappingsPointIntoTheHostMemory) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment()) * 2;
  HostMemoryPtr memory = allocate_host(size, 0x11);
  ASSERT_NE(memory, nullptr);
  BufferPtr imported;
  HALO_ASSERT_OK(import(memory.get(), size, &imported));
  const uint64_t offset = capabilities().min_buffer_alignment;
  void* pointer = nullptr;
  HALO_ASSERT_OK(halo_buffer_map_range(imported.get(), offset, 64, &pointer));
  EXPECT_EQ(pointer, memory.get() + offset);
  std::memset(pointer, 0x22, 64);
  HALO_EXPECT_OK(halo_buffer_flush_range(imported.get(), offset, 64));
  HALO_ASSERT_OK(halo_buffer_unmap_range(imported.get(), offset, 64));
  EXPECT_EQ(memory.get()[offset], 0x22);
  EXPECT_EQ(memory.get()[offset + 64], 0x11);
  HALO_EXPECT_OK(halo_buffer_invalidate_range(imported.get(), 0,
                                              HALO_WHOLE_BUFFER));
  EXPECT_EQ(halo_buffer_size(imported.get()), size);
}

TEST_F(ExternalTest, DispatchReadsAndWritesTheImportedBuffer) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  ExecutablePtr executable;
  HALO_ASSERT_OK(build(kIncrementSource, &executable));
  // Bound at an offset too, which makes a sub-buffer of the import.
  const uint64_t offset = capabilities().min_buffer_alignment;
  const size_t size = static_cast<size_t>(alignment());
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  const uint32_t n = 256;
  auto* words = reinterpret_cast<uint32_t*>(memory.get() + offset);
  for (uint32_t i = 0; i < n; ++i) words[i] = i * 3;
  BufferPtr imported;
  HALO_ASSERT_OK(import(memory.get(), size, &imported));
  CommandBufferPtr command_buffer = begin_command_buffer();
  halo_buffer_binding_t binding = {imported.get(), offset, n * 4};
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.executable = executable.get();
  params.workgroup_count[0] = n / 64;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  params.constant_size = sizeof(n);
  params.constants = &n;
  params.binding_count = 1;
  params.bindings = &binding;
  HALO_ASSERT_OK(halo_command_buffer_dispatch(command_buffer.get(), &params));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  run(command_buffer.get());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(words[i], i * 3 + 1) << i;
  for (uint64_t i = 0; i < offset; ++i) ASSERT_EQ(memory.get()[i], 0) << i;
}

TEST_F(ExternalTest, ReleasedWhileWaitingTheWorkStillRuns) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment());
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr imported;
  HALO_ASSERT_OK(import(memory.get(), size, &imported));
  CommandBufferPtr command_buffer = begin_command_buffer();
  const uint32_t pattern = 0x77777777;
  HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), imported.get(),
                                          0, HALO_WHOLE_BUFFER, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  SemaphorePtr gate = make_semaphore(), done = make_semaphore();
  HALO_ASSERT_OK(submit(command_buffer.get(), {gate.get()}, {1}, {done.get()},
                        {1}));
  // The submission holds the last references now.
  command_buffer.reset();
  imported.reset();
  EXPECT_EQ(memory.get()[0], 0) << "the work ran before its wait";
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_ASSERT_OK(halo_semaphore_wait(done.get(), 1, deadline_in_ms(20000)));
  EXPECT_EQ(std::vector<uint8_t>(memory.get(), memory.get() + size),
            std::vector<uint8_t>(size, 0x77));
  // The buffer is destroyed once the submission is released; only then may
  // the memory go (freed by this test: the buffer must not have freed it).
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
}

TEST_F(ExternalTest, SameMemoryImportedTwice) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment()) * 2;
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr whole, prefix;
  HALO_ASSERT_OK(import(memory.get(), size, &whole));
  // The second names only the first half of the same allocation.
  const size_t half = size / 2;
  HALO_ASSERT_OK(import(memory.get(), half, &prefix, size));
  EXPECT_EQ(halo_buffer_size(prefix.get()), half);
  const uint32_t first = 0x01010101, second = 0x02020202;
  CommandBufferPtr fill_whole = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_fill(fill_whole.get(), whole.get(), 0,
                                          HALO_WHOLE_BUFFER, &first, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill_whole.get()));
  run(fill_whole.get());
  CommandBufferPtr fill_prefix = begin_command_buffer();
  HALO_ASSERT_OK(halo_command_buffer_fill(fill_prefix.get(), prefix.get(), 0,
                                          HALO_WHOLE_BUFFER, &second, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill_prefix.get()));
  run(fill_prefix.get());
  for (size_t i = 0; i < size; ++i) {
    ASSERT_EQ(memory.get()[i], i < half ? 0x02 : 0x01) << "byte " << i;
  }
}

TEST_F(ExternalTest, CommandsOnTwoImportsOfOneMemoryTakeEffectInOrder) {
  // A fill through one import, then, with no barrier, a copy out of the
  // other: the copy reads the same bytes, so it must see the fill
  // (command_buffer.h), though the two are different buffers.
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t page = static_cast<size_t>(alignment());
  const size_t size = ((size_t{4} << 20) + page - 1) / page * page;
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr first, second;
  HALO_ASSERT_OK(import(memory.get(), size, &first));
  // The second starts a page in, so the same byte has another offset.
  HALO_ASSERT_OK(import(memory.get() + page, size - page, &second));
  BufferPtr target = make_buffer(size - page);
  CommandBufferPtr command_buffer = begin_command_buffer();
  for (uint32_t round = 1; round <= 4; ++round) {
    const uint32_t pattern = round * 0x01010101u;
    HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), first.get(),
                                            0, HALO_WHOLE_BUFFER, &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_copy(command_buffer.get(), second.get(),
                                            0, target.get(), 0, size - page));
  }
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  run(command_buffer.get());
  EXPECT_EQ(read(target.get(), size - page),
            std::vector<uint8_t>(size - page, 4));
}

TEST_F(ExternalTest, CopiesBetweenTwoImportsOfOneMemoryMustNotOverlap) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t page = static_cast<size_t>(alignment());
  HostMemoryPtr memory = allocate_host(page * 3, 0x5E);
  ASSERT_NE(memory, nullptr);
  BufferPtr first, second;
  HALO_ASSERT_OK(import(memory.get(), page * 2, &first));
  HALO_ASSERT_OK(import(memory.get() + page, page * 2, &second));
  CommandBufferPtr command_buffer = begin_command_buffer();
  // first's second page is second's first page.
  Status overlapping(halo_command_buffer_copy(command_buffer.get(), first.get(),
                                              page + 64, second.get(), 0, 128));
  EXPECT_EQ(overlapping.code(), HALO_STATUS_INVALID_ARGUMENT)
      << overlapping.describe();
  // Apart: first's first page into second's second page.
  const uint32_t pattern = 0x61616161;
  HALO_ASSERT_OK(halo_command_buffer_fill(command_buffer.get(), first.get(), 0,
                                          page, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_copy(command_buffer.get(), first.get(), 0,
                                          second.get(), page, page));
  HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
  run(command_buffer.get());
  for (size_t i = 0; i < page * 3; ++i) {
    ASSERT_EQ(memory.get()[i], i < page || i >= page * 2 ? 0x61 : 0x5E) << i;
  }
}

TEST_F(ExternalTest, MisalignedHostMemoryIsRefused) {
  HALO_SKIP_WITHOUT_HOST_IMPORT();
  const size_t size = static_cast<size_t>(alignment()) * 2;
  HostMemoryPtr memory = allocate_host(size, 0);
  ASSERT_NE(memory, nullptr);
  BufferPtr imported;
  Status pointer(import(memory.get() + 64, alignment(), &imported));
  EXPECT_EQ(pointer.code(), HALO_STATUS_INVALID_ARGUMENT) << pointer.describe();
  EXPECT_EQ(imported, nullptr);
  Status length(import(memory.get(), alignment() - 64, &imported,
                       alignment() - 64));
  EXPECT_EQ(length.code(), HALO_STATUS_INVALID_ARGUMENT) << length.describe();
  EXPECT_EQ(imported, nullptr);
}

}  // namespace
}  // namespace halo_opencl_test
