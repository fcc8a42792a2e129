// libhalo's checks on external handles (external.h): every malformed handle,
// type and parameter is refused naming the call and the argument before a
// plugin sees it, a type the device does not report is UNIMPLEMENTED, and a
// plugin without the ABI 1.3 entries answers UNIMPLEMENTED rather than
// crashing. The cpu plugin (HOST_ALLOCATION both ways) and test_good
// (nothing to share) are the devices.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "halo/external.h"
#include "loader_test_util.hpp"
#include "two_plugin_test.hpp"

namespace halo_test {
namespace {

halo_external_handle_t host_handle(void* pointer, uint64_t size) {
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  handle.fd = -1;
  handle.host_pointer = pointer;
  handle.size = size;
  return handle;
}

halo_buffer_params_t buffer_params(uint64_t size, halo_buffer_flags_t flags = 0) {
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_MAPPING | HALO_BUFFER_USAGE_TRANSFER_TARGET;
  params.flags = flags;
  params.size = size;
  return params;
}

// Application memory a device can import: whole 4 KiB pages.
struct HostMemory {
  static constexpr uint64_t kSize = 2 * 4096;
  void* data = std::aligned_alloc(4096, kSize);
  ~HostMemory() { std::free(data); }
};

class ExternalApiTest : public LoaderTest {
 protected:
  void SetUp() override {
#ifndef HALO_TEST_HAVE_CPU_PLUGIN
    GTEST_SKIP() << "this build has no cpu plugin";
#else
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    device_ = registry_.create_device(0);
#endif
  }

  halo_buffer_t* allocate(halo_buffer_flags_t flags) {
    halo_buffer_params_t params = buffer_params(100, flags);
    halo_buffer_t* buffer = nullptr;
    EXPECT_EQ(halo_buffer_allocate(device_.get(), &params, &buffer), HALO_OK);
    return buffer;
  }

  halo::Registry registry_;
  halo::Device device_;
};

TEST_F(ExternalApiTest, ExportRefusesMalformedArguments) {
  halo_buffer_t* buffer = allocate(HALO_BUFFER_FLAG_EXPORTABLE);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  expect_status(halo_buffer_export(buffer, 0, &handle), HALO_STATUS_INVALID_ARGUMENT,
                "halo_buffer_export: type 0x0 is not exactly one known");
  expect_status(halo_buffer_export(buffer, 3, &handle), HALO_STATUS_INVALID_ARGUMENT,
                "type 0x3");
  expect_status(halo_buffer_export(buffer, 16, &handle), HALO_STATUS_INVALID_ARGUMENT,
                "type 0x10");
  expect_status(halo_buffer_export(buffer, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_buffer_export: out_handle is NULL");
  handle.struct_size = 8;
  expect_status(halo_buffer_export(buffer, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle),
                HALO_STATUS_INVALID_ARGUMENT, "out_handle->struct_size 8 is smaller");
  handle.struct_size = sizeof(handle);
  expect_status(halo_buffer_export(nullptr, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle),
                HALO_STATUS_INVALID_ARGUMENT, "halo_buffer_export: buffer");
  halo_buffer_release(buffer);
}

TEST_F(ExternalApiTest, ExportNeedsTheFlagAndATypeTheDeviceOffers) {
  halo_buffer_t* plain = allocate(0);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  expect_status(halo_buffer_export(plain, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle),
                HALO_STATUS_FAILED_PRECONDITION,
                "halo_buffer_export: the buffer was created without EXPORTABLE");
  halo_buffer_t* exportable = allocate(HALO_BUFFER_FLAG_EXPORTABLE);
  expect_status(halo_buffer_export(exportable, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &handle),
                HALO_STATUS_UNIMPLEMENTED,
                "halo_buffer_export: the device cannot export buffers as OPAQUE_FD");
  halo_buffer_release(exportable);
  halo_buffer_release(plain);
}

TEST_F(ExternalApiTest, ExportedHostAllocationImportsAsTheSameMemory) {
  halo_buffer_t* original = allocate(HALO_BUFFER_FLAG_EXPORTABLE);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  ASSERT_EQ(halo_buffer_export(original, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, &handle),
            HALO_OK);
  EXPECT_EQ(handle.type, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  EXPECT_EQ(handle.fd, -1);
  // An exportable cpu buffer lies on whole pages, for importers that need them.
  EXPECT_EQ(handle.size % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(handle.host_pointer) % 4096, 0u);

  halo_buffer_params_t params = buffer_params(100);
  halo_buffer_t* imported = nullptr;
  ASSERT_EQ(halo_buffer_import(device_.get(), &params, &handle, &imported), HALO_OK);
  void* written = nullptr;
  void* read = nullptr;
  ASSERT_EQ(halo_buffer_map_range(original, 0, 100, &written), HALO_OK);
  ASSERT_EQ(halo_buffer_map_range(imported, 0, 100, &read), HALO_OK);
  std::memset(written, 0x5a, 100);
  EXPECT_EQ(static_cast<uint8_t*>(read)[99], 0x5a);
  ASSERT_EQ(halo_buffer_unmap_range(imported, 0, 100), HALO_OK);
  ASSERT_EQ(halo_buffer_unmap_range(original, 0, 100), HALO_OK);
  halo_buffer_release(imported);
  halo_buffer_release(original);
}

TEST_F(ExternalApiTest, ImportRefusesMalformedHandles) {
  HostMemory memory;
  halo_buffer_params_t params = buffer_params(HostMemory::kSize);
  halo_buffer_t* buffer = nullptr;
  expect_status(halo_buffer_import(device_.get(), &params, nullptr, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "halo_buffer_import: handle is NULL");
  halo_external_handle_t handle = host_handle(memory.data, HostMemory::kSize);
  handle.struct_size = 16;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "handle->struct_size 16 is smaller than ABI 1.3's");
  handle = host_handle(memory.data, HostMemory::kSize);
  handle.type |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "handle->type 0x3 is not exactly one known");
  handle = host_handle(nullptr, HostMemory::kSize);
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "handle->host_pointer is NULL");
  handle = host_handle(memory.data, HostMemory::kSize);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "handle->fd -1 is not a file descriptor");
  EXPECT_EQ(buffer, nullptr);
}

TEST_F(ExternalApiTest, ImportRefusesParamsTheMemoryCannotMeet) {
  HostMemory memory;
  halo_buffer_t* buffer = nullptr;
  halo_external_handle_t handle = host_handle(memory.data, HostMemory::kSize);
  halo_buffer_params_t params = buffer_params(HostMemory::kSize + 1);
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "params->size 8193 must be 1 to handle->size 8192");
  params = buffer_params(64);
  params.alignment = 64;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "params->alignment must be 0");
  params = buffer_params(64, HALO_BUFFER_FLAG_EXPORTABLE);
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "params->flags asks for EXPORTABLE");
  params = buffer_params(64, 1u << 9);
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "params->flags has unknown bits 0x200");
  params = buffer_params(64);
  params.memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "lacks HOST_VISIBLE");
  params = buffer_params(64);
  handle = host_handle(static_cast<char*>(memory.data) + 8, 4096);
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_INVALID_ARGUMENT, "must be multiples of the device's "
                                              "host_allocation_alignment 64");
  EXPECT_EQ(buffer, nullptr);
}

TEST_F(ExternalApiTest, ImportOfATypeTheDeviceLacksIsUnimplementedAndKeepsTheFd) {
  HostMemory memory;
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  halo_external_handle_t handle = host_handle(nullptr, 4096);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  handle.fd = fd;
  halo_buffer_params_t params = buffer_params(64);
  halo_buffer_t* buffer = nullptr;
  expect_status(halo_buffer_import(device_.get(), &params, &handle, &buffer),
                HALO_STATUS_UNIMPLEMENTED,
                "halo_buffer_import: the device cannot import buffers as OPAQUE_FD (it can "
                "as HOST_ALLOCATION)");
  // A failed import leaves the fd with the caller.
  EXPECT_NE(fcntl(fd, F_GETFD), -1);
  close(fd);
}

// The cpu device shares semaphores as host timelines only.
TEST_F(ExternalApiTest, UnsupportedFlagsAndEntriesAreUnimplemented) {
  halo_semaphore_t* semaphore = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_.get(), 0, HALO_SEMAPHORE_FLAG_EXPORTABLE, &semaphore),
            HALO_OK);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  expect_status(halo_semaphore_export(semaphore, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &handle),
                HALO_STATUS_UNIMPLEMENTED, "halo_semaphore_export");
  halo_semaphore_release(semaphore);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  handle.fd = 0;
  expect_status(halo_semaphore_import(device_.get(), &handle, &semaphore),
                HALO_STATUS_UNIMPLEMENTED,
                "halo_semaphore_import: the device cannot import semaphores as OPAQUE_FD "
                "(it can as HOST_TIMELINE_FD)");
  EXPECT_EQ(semaphore, nullptr);
}

// ABI 1.5: an import for device waits only is checked against either
// import list, and no other flag is taken; a plain semaphore of the cpu
// plugin is no candidate for a device-side wait.
TEST_F(ExternalApiTest, DeviceWaitImportsAreCheckedAgainstBothLists) {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  halo_external_handle_t handle{};
  handle.struct_size = sizeof(handle);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  handle.fd = fd;
  handle.flags = HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY;
  halo_semaphore_t* semaphore = nullptr;
  expect_status(halo_semaphore_import(device_.get(), &handle, &semaphore),
                HALO_STATUS_UNIMPLEMENTED,
                "halo_semaphore_import: the device cannot import semaphores for device "
                "waits as OPAQUE_FD (it can as HOST_TIMELINE_FD)");
  handle.flags = HALO_EXTERNAL_HANDLE_FLAG_DEDICATED;
  expect_status(halo_semaphore_import(device_.get(), &handle, &semaphore),
                HALO_STATUS_INVALID_ARGUMENT,
                "halo_semaphore_import: handle->flags 0x1 has bits other than "
                "DEVICE_WAITS_ONLY");
  EXPECT_EQ(semaphore, nullptr);
  // Both refusals leave the fd with the caller.
  EXPECT_NE(fcntl(fd, F_GETFD), -1);
  close(fd);
}

#if defined(HALO_TEST_HAVE_CPU_PLUGIN) && defined(HALO_TEST_PEER_LIBRARY)
using DeviceSideWaitTest = TwoPluginTest;

// Neither plugin exports semaphores: a wait across them is no device-side
// wait, and the host still hands it over.
TEST_F(DeviceSideWaitTest, SemaphoresThatDoNotExportAreHandedOverByTheHost) {
  halo_semaphore_t* semaphore = nullptr;
  ASSERT_EQ(halo_semaphore_create(cpu_.get(), 0, 0, &semaphore), HALO_OK);
  halo_semaphore_compatibility_t compatibility = 0;
  ASSERT_EQ(halo_device_semaphore_compatibility(peer_.get(), semaphore, &compatibility),
            HALO_OK);
  EXPECT_EQ(compatibility & HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT, 0u);
  halo_semaphore_t* done = nullptr;
  ASSERT_EQ(halo_semaphore_create(peer_.get(), 0, 0, &done), HALO_OK);
  const uint64_t one = 1;
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  info.wait_semaphores = &semaphore;
  info.wait_values = &one;
  info.signal_count = 1;
  info.signal_semaphores = &done;
  info.signal_values = &one;
  ASSERT_EQ(halo_device_queue_execute(peer_.get(), &info), HALO_OK);
  uint64_t value = 0;
  ASSERT_EQ(halo_semaphore_query(done, &value), HALO_OK);
  EXPECT_EQ(value, 0u);
  ASSERT_EQ(halo_semaphore_signal(semaphore, 1), HALO_OK);
  EXPECT_EQ(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_FUTURE), HALO_OK);
  halo_semaphore_release(done);
  halo_semaphore_release(semaphore);
}
#endif

// test_good reports nothing to share (its capabilities end before ABI 1.3's
// members) and leaves every ABI 1.3 entry NULL.
TEST(ExternalApiOlderPluginTest, APluginThatSharesNothingAnswersUnimplemented) {
  EnvironmentGuard environment;
  const halo::Registry registry = scan({good_manifest("test_good")});
  const halo::Device device = registry.create_device(0);
  halo_buffer_params_t params = buffer_params(64, HALO_BUFFER_FLAG_EXPORTABLE);
  halo_buffer_t* buffer = nullptr;
  expect_status(halo_buffer_allocate(device.get(), &params, &buffer), HALO_STATUS_UNIMPLEMENTED,
                "halo_buffer_allocate: params->flags asks for EXPORTABLE");
  HostMemory memory;
  halo_external_handle_t handle = host_handle(memory.data, HostMemory::kSize);
  params = buffer_params(64);
  expect_status(halo_buffer_import(device.get(), &params, &handle, &buffer),
                HALO_STATUS_UNIMPLEMENTED,
                "the device cannot import buffers as HOST_ALLOCATION (it can as nothing)");
  EXPECT_EQ(buffer, nullptr);
  halo_semaphore_t* semaphore = nullptr;
  expect_status(
      halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAG_EXPORTABLE, &semaphore),
      HALO_STATUS_UNIMPLEMENTED,
      "halo_semaphore_create: flags asks for EXPORTABLE, but the device cannot export "
      "semaphores as any external handle type");
  EXPECT_EQ(semaphore, nullptr);
}

}  // namespace
}  // namespace halo_test
