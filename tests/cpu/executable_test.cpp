// Executables of the cpu device: the "cpu-so" format, entry point queries,
// every way a kernel table can be refused, and library load/unload cycles.
#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using ExecutableTest = WorkTest;

void expect_invalid(const Status& status, const std::string& words) {
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT) << status.describe();
  EXPECT_NE(status.message().find("halo_executable_create"), std::string::npos)
      << status.describe();
  EXPECT_NE(status.message().find(words), std::string::npos)
      << status.describe();
}

Status create_from_bytes(halo_device_t* device, const char* format,
                         const void* data, size_t size) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = format;
  params.data = data;
  params.data_size = size;
  halo_executable_t* executable = nullptr;
  Status status(halo_executable_create(device, &params, &executable));
  EXPECT_EQ(executable == nullptr, !status.ok());
  halo_executable_release(executable);
  return status;
}

struct EntryPointFacts {
  const char* name;
  uint32_t binding_count;
  uint32_t constant_size;
};

// The table of test_kernels.c, in order.
const EntryPointFacts kTestKernels[] = {
    {"empty", 0, 0},     {"iota", 1, 8},          {"saxpy", 2, 8},
    {"add3", 4, 4},      {"increment", 1, 4},     {"constants", 1, 48},
    {"workgroup_ids", 1, 0}, {"thread_ids", 1, 0}, {"rendezvous", 2, 0},
};

TEST_F(ExecutableTest, DescribesEveryEntryPointOfTheTable) {
  ExecutablePtr executable = test_kernels();
  ASSERT_NE(executable, nullptr);
  uint32_t count = 0;
  HALO_ASSERT_OK(halo_executable_entry_point_count(executable.get(), &count));
  ASSERT_EQ(count, std::size(kTestKernels));
  for (uint32_t i = 0; i < count; ++i) {
    SCOPED_TRACE(kTestKernels[i].name);
    halo_entry_point_info_t info = {};
    info.struct_size = sizeof(info);
    HALO_ASSERT_OK(
        halo_executable_query_entry_point(executable.get(), i, &info));
    EXPECT_STREQ(info.name, kTestKernels[i].name);
    EXPECT_EQ(info.binding_count, kTestKernels[i].binding_count);
    EXPECT_EQ(info.constant_size, kTestKernels[i].constant_size);
    // A cpu entry point fixes no workgroup size (cpu_kernel.h).
    EXPECT_EQ(info.workgroup_size[0], 0u);
    EXPECT_EQ(info.workgroup_size[1], 0u);
    EXPECT_EQ(info.workgroup_size[2], 0u);
    EXPECT_EQ(entry_point(executable.get(), kTestKernels[i].name), i);
  }
}

TEST_F(ExecutableTest, UnknownOrdinalsAndNamesAreRefused) {
  ExecutablePtr executable = test_kernels();
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  Status beyond(halo_executable_query_entry_point(
      executable.get(), std::size(kTestKernels), &info));
  EXPECT_EQ(beyond.code(), HALO_STATUS_OUT_OF_RANGE) << beyond.describe();
  uint32_t ordinal = 0;
  Status missing(
      halo_executable_lookup_entry_point(executable.get(), "nope", &ordinal));
  EXPECT_EQ(missing.code(), HALO_STATUS_NOT_FOUND) << missing.describe();
  EXPECT_NE(missing.message().find("'nope'"), std::string::npos);
}

TEST_F(ExecutableTest, OtherFormatsAndEmptyDataAreRefused) {
  std::vector<uint8_t> bytes = kernel_bytes("test_kernels");
  expect_invalid(
      create_from_bytes(device(), "spirv", bytes.data(), bytes.size()),
      "supports: cpu-so");
  expect_invalid(
      create_from_bytes(device(), "CPU-SO", bytes.data(), bytes.size()),
      "'CPU-SO'");
  expect_invalid(create_from_bytes(device(), "cpu-so", nullptr, 0),
                 "data_size is 0");
}

TEST_F(ExecutableTest, BytesThatAreNotASharedObjectAreRefusedWithTheReason) {
  std::vector<uint8_t> text(4096, 'x');
  Status status =
      create_from_bytes(device(), "cpu-so", text.data(), text.size());
  expect_invalid(status, "not a loadable cpu-so shared object");
  EXPECT_NE(status.message().find("ELF"), std::string::npos)
      << "dlopen's reason is missing: " << status.describe();
  // A truncated library: an ELF header without the rest.
  std::vector<uint8_t> bytes = kernel_bytes("test_kernels");
  expect_invalid(create_from_bytes(device(), "cpu-so", bytes.data(), 100),
                 "not a loadable cpu-so shared object");
}

// dlopen would fault (SIGBUS) on a segment past the end of the file, so
// truncated bytes must be refused before it sees them, wherever the cut.
TEST_F(ExecutableTest, EveryTruncationIsRefused) {
  std::vector<uint8_t> bytes = kernel_bytes("test_kernels");
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t cut = 1; cut < bytes.size(); cut += 61) {
    SCOPED_TRACE(cut);
    expect_invalid(create_from_bytes(device(), "cpu-so", bytes.data(), cut),
                   "not a loadable cpu-so shared object");
  }
  expect_invalid(create_from_bytes(device(), "cpu-so", bytes.data(),
                                   bytes.size() - 1),
                 "truncated");
}

// ELF files that are not this host's shared objects.
TEST_F(ExecutableTest, OtherKindsOfElfFilesAreRefused) {
  const std::vector<uint8_t> good = kernel_bytes("test_kernels");
  std::vector<uint8_t> bytes = good;
  bytes[4] = bytes[4] == 2 ? 1 : 2;  // EI_CLASS: 32 <-> 64 bit.
  expect_invalid(
      create_from_bytes(device(), "cpu-so", bytes.data(), bytes.size()),
      "class or byte order");
  bytes = good;
  bytes[16] = 1;  // e_type (little-endian): ET_REL, an object file.
  bytes[17] = 0;
  expect_invalid(
      create_from_bytes(device(), "cpu-so", bytes.data(), bytes.size()),
      "not a shared object");
}

struct BrokenTable {
  const char* library;
  const char* reason;
};

const BrokenTable kBrokenTables[] = {
    {"broken_abi_version", "abi_version 2"},
    {"broken_buffer_after_scalar", "buffer after a scalar"},
    {"broken_unknown_kind", "unknown kind 42"},
    {"broken_duplicate_name", "both named 'twin'"},
    {"broken_duplicate_function", "name the same function"},
    {"broken_null_function", "entry 1 ('missing'): function is NULL"},
    {"broken_null_name", "name is NULL"},
    {"broken_long_name", "longer than 127 bytes"},
    {"broken_too_many_parameters", "65 parameters"},
    {"broken_no_entry_points", "no entry points"},
    {"broken_missing_table", "does not export 'halo_cpu_kernel_table'"},
    {"broken_unresolved_symbol", "halo_test_no_such_function"},
};

TEST_F(ExecutableTest, BrokenTablesAreRefusedWithTheReason) {
  for (const BrokenTable& broken : kBrokenTables) {
    SCOPED_TRACE(broken.library);
    ExecutablePtr executable;
    expect_invalid(create_executable(broken.library, &executable),
                   broken.reason);
    EXPECT_EQ(executable, nullptr);
  }
}

// Each load is a fresh library, even when the previous one was unloaded and
// its file descriptor number reused: a stale name must never hand back the
// old kernel (a broken table loaded after a good one is still refused).
TEST_F(ExecutableTest, LoadUnloadCyclesNeverAliasAnEarlierLibrary) {
  for (int round = 0; round < 20; ++round) {
    ExecutablePtr good = test_kernels();
    ASSERT_NE(good, nullptr);
    ExecutablePtr second = test_kernels();  // Loaded twice at once: fine.
    ASSERT_NE(second, nullptr);
    good.reset();
    second.reset();
    ExecutablePtr broken;
    expect_invalid(create_executable("broken_abi_version", &broken),
                   "abi_version 2");
  }
}

// An executable retains its device.
TEST_F(ExecutableTest, ExecutableKeepsItsDeviceAlive) {
  DevicePtr other = make_device();
  ExecutablePtr executable = test_kernels(other.get());
  other.reset();
  EXPECT_EQ(entry_point(executable.get(), "saxpy"), 2u);
}

}  // namespace
}  // namespace halo_cpu_test
