// External handles of the vulkan plugin (halo/external.h, ABI 1.3) through
// the public C API: opaque-fd buffers exported by one device and imported
// by another (a VkDevice of its own on the same physical device), host
// allocations imported as buffers, the fd ownership of a failed import,
// buffers named by the other device's commands (libhalo's imports), and
// timeline semaphores shared as opaque fds where the driver offers it
// (lavapipe does not: those cases skip there and run on GPUs).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

constexpr uint64_t kWords = 256;
constexpr uint64_t kBytes = kWords * sizeof(uint32_t);

class ExternalTest : public VulkanTest {
 protected:
  halo_buffer_params_t params(halo_buffer_flags_t flags = 0) const {
    halo_buffer_params_t params = {};
    params.struct_size = sizeof(params);
    params.memory_type =
        HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;
    params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                   HALO_BUFFER_USAGE_TRANSFER_TARGET |
                   HALO_BUFFER_USAGE_DISPATCH_STORAGE |
                   HALO_BUFFER_USAGE_MAPPING;
    params.flags = flags;
    params.size = kBytes;
    return params;
  }

  static halo_external_handle_t empty_handle() {
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    handle.fd = -1;
    return handle;
  }

  bool exports_buffers() const {
    return (capabilities().buffer_export_types &
            HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) != 0;
  }

  // An EXPORTABLE buffer of the device under test and a buffer of |on|
  // imported from its opaque fd.
  void share_buffer(halo_device_t* on, BufferPtr* exported,
                    BufferPtr* imported) {
    const halo_buffer_params_t exportable = params(HALO_BUFFER_FLAG_EXPORTABLE);
    halo_buffer_t* buffer = nullptr;
    HALO_ASSERT_OK(halo_buffer_allocate(device(), &exportable, &buffer));
    exported->reset(buffer);
    halo_external_handle_t handle = empty_handle();
    HALO_ASSERT_OK(halo_buffer_export(buffer, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD,
                                      &handle));
    ASSERT_GE(handle.fd, 0);
    ASSERT_GE(handle.size, kBytes);
    const halo_buffer_params_t plain = params();
    halo_buffer_t* other = nullptr;
    Status status(halo_buffer_import(on, &plain, &handle, &other));
    if (!status.ok()) close(handle.fd);  // Still ours after a failure.
    ASSERT_TRUE(status.ok()) << status.describe();
    imported->reset(other);
  }

  // Runs one command buffer of |on| (recorded by |record|) to completion.
  template <class Record>
  void run_on(halo_device_t* on, Record record) {
    CommandBufferPtr command_buffer =
        begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, on);
    ASSERT_NE(command_buffer, nullptr);
    record(command_buffer.get());
    HALO_ASSERT_OK(halo_command_buffer_end(command_buffer.get()));
    SemaphorePtr done = make_semaphore(0, on);
    halo_semaphore_t* signal = done.get();
    const uint64_t one = 1;
    halo_command_buffer_t* list = command_buffer.get();
    halo_queue_execute_info_t info = {};
    info.struct_size = sizeof(info);
    info.affinity = HALO_QUEUE_AFFINITY_ANY;
    info.signal_count = 1;
    info.signal_semaphores = &signal;
    info.signal_values = &one;
    info.command_buffer_count = 1;
    info.command_buffers = &list;
    HALO_ASSERT_OK(halo_device_queue_execute(on, &info));
    HALO_ASSERT_OK(wait(done.get(), 1));
  }

  void fill_on(halo_device_t* on, halo_buffer_t* buffer, uint32_t pattern) {
    run_on(on, [&](halo_command_buffer_t* command_buffer) {
      HALO_EXPECT_OK(halo_command_buffer_fill(command_buffer, buffer, 0,
                                              HALO_WHOLE_BUFFER, &pattern,
                                              sizeof(pattern)));
    });
  }
};

TEST_F(ExternalTest, CapabilitiesOfLavapipe) {
  if (!is_lavapipe(info())) GTEST_SKIP() << "written against lavapipe";
  const halo_device_capabilities_t& caps = capabilities();
  EXPECT_EQ(caps.buffer_export_types, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD);
  EXPECT_EQ(caps.buffer_import_types,
            HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD |
                HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION);
  EXPECT_NE(caps.host_allocation_alignment, 0u);
  EXPECT_EQ(caps.host_allocation_alignment &
                (caps.host_allocation_alignment - 1),
            0u);
  // Mesa 22.3's lavapipe has no VK_KHR_external_semaphore_fd.
  EXPECT_EQ(caps.semaphore_export_types, 0u);
  EXPECT_EQ(caps.semaphore_import_types, 0u);
}

TEST_F(ExternalTest, OpaqueFdBufferSharedBetweenDevices) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  BufferPtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(share_buffer(second_device(), &exported, &imported));
  // Written by the exporter's device, read through the importer's mapping.
  fill_on(device(), exported.get(), 0x11223344u);
  EXPECT_EQ(read(imported.get(), kWords),
            std::vector<uint32_t>(kWords, 0x11223344u));
  // Written by the importer's device, read through the exporter's mapping.
  fill_on(second_device(), imported.get(), 0x55667788u);
  EXPECT_EQ(read(exported.get(), kWords),
            std::vector<uint32_t>(kWords, 0x55667788u));
  // A host write through one mapping is seen through the other.
  write(imported.get(), std::vector<uint32_t>(kWords, 7));
  EXPECT_EQ(read(exported.get(), kWords), std::vector<uint32_t>(kWords, 7));
}

TEST_F(ExternalTest, ImportedBufferWorksInEveryCommand) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  BufferPtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(share_buffer(second_device(), &exported, &imported));
  ExecutablePtr executable;
  HALO_ASSERT_OK(create_executable(kernel_spirv("add_one"), &executable,
                                   second_device()));
  BufferPtr copy = make_buffer(kBytes, second_device());
  std::vector<uint32_t> words(kWords);
  for (uint32_t i = 0; i < kWords; ++i) words[i] = i;
  const uint32_t count = kWords;
  run_on(second_device(), [&](halo_command_buffer_t* command_buffer) {
    HALO_EXPECT_OK(halo_command_buffer_update(command_buffer, words.data(),
                                              imported.get(), 0, kBytes));
    halo_buffer_binding_t binding = {imported.get(), 0, HALO_WHOLE_BUFFER};
    halo_dispatch_params_t dispatch = {};
    dispatch.struct_size = sizeof(dispatch);
    dispatch.executable = executable.get();
    dispatch.workgroup_count[0] = kWords / 64;
    dispatch.workgroup_count[1] = 1;
    dispatch.workgroup_count[2] = 1;
    dispatch.constant_size = sizeof(count);
    dispatch.constants = &count;
    dispatch.binding_count = 1;
    dispatch.bindings = &binding;
    HALO_EXPECT_OK(halo_command_buffer_dispatch(command_buffer, &dispatch));
    HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer, imported.get(), 0,
                                            copy.get(), 0, kBytes));
  });
  for (uint32_t i = 0; i < kWords; ++i) words[i] = i + 1;
  EXPECT_EQ(read(copy.get(), kWords), words);
  EXPECT_EQ(read(exported.get(), kWords), words);
}

TEST_F(ExternalTest, ImportOutlivesTheExportingBuffer) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  BufferPtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(share_buffer(second_device(), &exported, &imported));
  fill_on(device(), exported.get(), 3);
  exported.reset();
  EXPECT_EQ(read(imported.get(), kWords), std::vector<uint32_t>(kWords, 3));
  fill_on(second_device(), imported.get(), 9);
  EXPECT_EQ(read(imported.get(), kWords), std::vector<uint32_t>(kWords, 9));
}

TEST_F(ExternalTest, ImportOnTheExportingDevice) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  BufferPtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(share_buffer(device(), &exported, &imported));
  fill_on(device(), imported.get(), 0xabcdef01u);
  EXPECT_EQ(read(exported.get(), kWords),
            std::vector<uint32_t>(kWords, 0xabcdef01u));
}

// Every descriptor below a lowered RLIMIT_NOFILE is open while it lives, so
// that the next one made anywhere in the process fails with EMFILE.
class FdsRunOut {
 public:
  FdsRunOut() {
    getrlimit(RLIMIT_NOFILE, &saved_);
    int highest = 2;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
      highest = std::max(highest, std::atoi(entry.path().filename().c_str()));
    }
    rlimit lowered = saved_;
    lowered.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, highest + 8);
    setrlimit(RLIMIT_NOFILE, &lowered);
    for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
      held_.push_back(fd);
    }
  }
  ~FdsRunOut() {
    for (int fd : held_) close(fd);
    setrlimit(RLIMIT_NOFILE, &saved_);
  }

 private:
  rlimit saved_ = {};
  std::vector<int> held_;
};

// An EXPORTABLE buffer named in the other device's commands: libhalo
// shares it as an opaque fd (external.h, "Buffers named by another
// device's commands"), and the commands write its memory.
TEST_F(ExternalTest, ExportableBufferNamedByTheOtherDevice) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  const halo_buffer_params_t exportable = params(HALO_BUFFER_FLAG_EXPORTABLE);
  halo_buffer_t* raw = nullptr;
  HALO_ASSERT_OK(halo_buffer_allocate(device(), &exportable, &raw));
  BufferPtr exported(raw);
  fill_on(second_device(), exported.get(), 0x0badf00du);
  EXPECT_EQ(read(exported.get(), kWords),
            std::vector<uint32_t>(kWords, 0x0badf00du));
}

// A sharing that failed because descriptors ran out is tried again at the
// next command, not remembered as impossible.
TEST_F(ExternalTest, SharingRefusedForWantOfFdsIsTriedAgain) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  const halo_buffer_params_t exportable = params(HALO_BUFFER_FLAG_EXPORTABLE);
  halo_buffer_t* raw = nullptr;
  HALO_ASSERT_OK(halo_buffer_allocate(device(), &exportable, &raw));
  BufferPtr exported(raw);
  CommandBufferPtr refused =
      begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, second_device());
  ASSERT_NE(refused, nullptr);
  {
    const FdsRunOut no_fds;
    const uint32_t pattern = 1;
    Status status(halo_command_buffer_fill(refused.get(), exported.get(), 0,
                                           HALO_WHOLE_BUFFER, &pattern,
                                           sizeof(pattern)));
    EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT) << status.describe();
  }
  fill_on(second_device(), exported.get(), 0x600dcafeu);
  EXPECT_EQ(read(exported.get(), kWords),
            std::vector<uint32_t>(kWords, 0x600dcafeu));
}

TEST_F(ExternalTest, HostAllocationImported) {
  const uint64_t alignment = capabilities().host_allocation_alignment;
  if ((capabilities().buffer_import_types &
       HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) == 0) {
    GTEST_SKIP() << "the device imports no host allocations";
  }
  const uint64_t size = (kBytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, size);
  ASSERT_NE(memory, nullptr);
  std::memset(memory, 0, size);
  {
    halo_external_handle_t handle = empty_handle();
    handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
    handle.host_pointer = memory;
    handle.size = size;
    const halo_buffer_params_t plain = params();
    halo_buffer_t* raw = nullptr;
    HALO_ASSERT_OK(halo_buffer_import(device(), &plain, &handle, &raw));
    BufferPtr imported(raw);
    // A device fill lands in the host memory.
    fill_on(device(), imported.get(), 0x5a5a5a5au);
    const auto* words = static_cast<const uint32_t*>(memory);
    EXPECT_EQ(std::vector<uint32_t>(words, words + kWords),
              std::vector<uint32_t>(kWords, 0x5a5a5a5au));
    // The buffer maps to the host memory itself.
    void* mapped = nullptr;
    HALO_ASSERT_OK(
        halo_buffer_map_range(imported.get(), 0, kBytes, &mapped));
    EXPECT_EQ(mapped, memory);
    HALO_EXPECT_OK(halo_buffer_unmap_range(imported.get(), 0, kBytes));
    // A host write is what the device copies.
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(memory)[i] = i * 3;
    }
    BufferPtr copy = make_buffer(kBytes);
    run_on(device(), [&](halo_command_buffer_t* command_buffer) {
      HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer, imported.get(),
                                              0, copy.get(), 0, kBytes));
    });
    std::vector<uint32_t> expected(kWords);
    for (uint32_t i = 0; i < kWords; ++i) expected[i] = i * 3;
    EXPECT_EQ(read(copy.get(), kWords), expected);
  }
  std::free(memory);
}

TEST_F(ExternalTest, FailedImportLeavesTheFdWithTheCaller) {
  if ((capabilities().buffer_import_types &
       HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) == 0) {
    GTEST_SKIP() << "the device imports no opaque fds";
  }
  const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  halo_external_handle_t handle = empty_handle();
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  handle.fd = fd;
  handle.size = 65536;
  const halo_buffer_params_t plain = params();
  halo_buffer_t* buffer = nullptr;
  Status status(halo_buffer_import(device(), &plain, &handle, &buffer));
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(buffer, nullptr);
  EXPECT_NE(status.message().find("halo_buffer_import"), std::string::npos)
      << status.describe();
  EXPECT_NE(fcntl(fd, F_GETFD), -1) << "the failed import closed the fd";
  close(fd);
  halo_buffer_release(buffer);
}

TEST_F(ExternalTest, ExportNeedsExportable) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  BufferPtr buffer = make_buffer(kBytes);
  halo_external_handle_t handle = empty_handle();
  Status status(halo_buffer_export(
      buffer.get(), HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &handle));
  expect_status(status, HALO_STATUS_FAILED_PRECONDITION,
                {"halo_buffer_export", "EXPORTABLE"});
  EXPECT_EQ(handle.fd, -1);
}

TEST_F(ExternalTest, ExportOfAnUnofferedTypeIsUnimplemented) {
  if (!exports_buffers()) GTEST_SKIP() << "the device exports no buffers";
  const halo_buffer_params_t exportable = params(HALO_BUFFER_FLAG_EXPORTABLE);
  halo_buffer_t* raw = nullptr;
  HALO_ASSERT_OK(halo_buffer_allocate(device(), &exportable, &raw));
  BufferPtr buffer(raw);
  halo_external_handle_t handle = empty_handle();
  Status status(halo_buffer_export(buffer.get(),
                                   HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF, &handle));
  expect_status(status, HALO_STATUS_UNIMPLEMENTED,
                {"halo_buffer_export", "DMA_BUF"});
}

TEST_F(ExternalTest, ExportableSemaphoreWithoutSupportIsUnimplemented) {
  if (capabilities().semaphore_export_types != 0) {
    GTEST_SKIP() << "the device exports semaphores";
  }
  halo_semaphore_t* semaphore = nullptr;
  Status status(halo_semaphore_create(device(), 0,
                                      HALO_SEMAPHORE_FLAG_EXPORTABLE,
                                      &semaphore));
  EXPECT_EQ(status.code(), HALO_STATUS_UNIMPLEMENTED) << status.describe();
  EXPECT_EQ(semaphore, nullptr);
}

// Semaphores shared as opaque fds: the cases skip where the device shares
// none (lavapipe) and run on GPUs that do.
class ExternalSemaphoreTest : public ExternalTest {
 protected:
  void SetUp() override {
    ExternalTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const halo_device_capabilities_t& caps = capabilities();
    if ((caps.semaphore_export_types & caps.semaphore_import_types &
         HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) == 0) {
      GTEST_SKIP() << "the device shares no timeline semaphores";
    }
  }

  // An EXPORTABLE semaphore of the device under test at |initial| and the
  // same timeline imported by |on|.
  void share_semaphore(halo_device_t* on, uint64_t initial,
                       SemaphorePtr* exported, SemaphorePtr* imported) {
    halo_semaphore_t* semaphore = nullptr;
    HALO_ASSERT_OK(halo_semaphore_create(
        device(), initial, HALO_SEMAPHORE_FLAG_EXPORTABLE, &semaphore));
    exported->reset(semaphore);
    halo_external_handle_t handle = empty_handle();
    HALO_ASSERT_OK(halo_semaphore_export(
        semaphore, HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &handle));
    ASSERT_GE(handle.fd, 0);
    halo_semaphore_t* other = nullptr;
    Status status(halo_semaphore_import(on, &handle, &other));
    if (!status.ok()) close(handle.fd);
    ASSERT_TRUE(status.ok()) << status.describe();
    imported->reset(other);
  }
};

TEST_F(ExternalSemaphoreTest, PayloadIsShared) {
  SemaphorePtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(
      share_semaphore(second_device(), 5, &exported, &imported));
  uint64_t value = 0;
  HALO_ASSERT_OK(halo_semaphore_query(imported.get(), &value));
  EXPECT_EQ(value, 5u);
  HALO_ASSERT_OK(halo_semaphore_signal(exported.get(), 6));
  HALO_ASSERT_OK(wait(imported.get(), 6));
  HALO_ASSERT_OK(halo_semaphore_signal(imported.get(), 7));
  HALO_ASSERT_OK(wait(exported.get(), 7));
}

TEST_F(ExternalSemaphoreTest, QueuesWaitAndSignalAcrossDevices) {
  SemaphorePtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(
      share_semaphore(second_device(), 0, &exported, &imported));
  BufferPtr buffer = make_buffer(kBytes, second_device());
  // The importer's queue waits for 1 (signalled by the exporter's host)
  // and signals 2, which the exporter's queue waits for before signalling
  // 3.
  CommandBufferPtr fill =
      begin_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, second_device());
  const uint32_t pattern = 42;
  HALO_ASSERT_OK(halo_command_buffer_fill(fill.get(), buffer.get(), 0,
                                          HALO_WHOLE_BUFFER, &pattern,
                                          sizeof(pattern)));
  HALO_ASSERT_OK(halo_command_buffer_end(fill.get()));
  halo_semaphore_t* waits[] = {imported.get()};
  const uint64_t wait_values[] = {1};
  halo_semaphore_t* signals[] = {imported.get()};
  const uint64_t signal_values[] = {2};
  halo_command_buffer_t* lists[] = {fill.get()};
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  info.wait_semaphores = waits;
  info.wait_values = wait_values;
  info.signal_count = 1;
  info.signal_semaphores = signals;
  info.signal_values = signal_values;
  info.command_buffer_count = 1;
  info.command_buffers = lists;
  HALO_ASSERT_OK(halo_device_queue_execute(second_device(), &info));
  HALO_ASSERT_OK(submit(nullptr, {exported.get()}, {2}, {exported.get()}, {3}));
  HALO_ASSERT_OK(halo_semaphore_signal(exported.get(), 1));
  HALO_ASSERT_OK(wait(imported.get(), 3));
  EXPECT_EQ(read(buffer.get(), kWords), std::vector<uint32_t>(kWords, 42));
}

TEST_F(ExternalSemaphoreTest, FailureCrossesAsDataLoss) {
  SemaphorePtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(
      share_semaphore(second_device(), 0, &exported, &imported));
  HALO_ASSERT_OK(halo_semaphore_fail(
      exported.get(), halo_status_format(HALO_STATUS_ABORTED, "test failure")));
  Status status(halo_semaphore_wait(imported.get(), 1,
                                    deadline_in_ms(kGenerousMs)));
  expect_status(status, HALO_STATUS_DATA_LOSS,
                {"failed where the semaphore was exported"});
  // The exporter keeps its own status.
  Status own(halo_semaphore_wait(exported.get(), 1,
                                 HALO_DEADLINE_INFINITE_PAST));
  expect_status(own, HALO_STATUS_ABORTED, {"test failure"});
  uint64_t value = 0;
  Status queried(halo_semaphore_query(imported.get(), &value));
  EXPECT_EQ(queried.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_GE(value, HALO_SEMAPHORE_FAILURE_VALUE);
}

TEST_F(ExternalSemaphoreTest, ImportedFailureReachesTheExporter) {
  SemaphorePtr exported, imported;
  ASSERT_NO_FATAL_FAILURE(
      share_semaphore(second_device(), 0, &exported, &imported));
  HALO_ASSERT_OK(halo_semaphore_fail(
      imported.get(), halo_status_format(HALO_STATUS_ABORTED, "test failure")));
  Status status(halo_semaphore_wait(exported.get(), 1,
                                    deadline_in_ms(kGenerousMs)));
  expect_status(status, HALO_STATUS_DATA_LOSS,
                {"failed where the semaphore was imported"});
}

TEST_F(ExternalSemaphoreTest, ExportNeedsExportable) {
  SemaphorePtr semaphore = make_semaphore();
  halo_external_handle_t handle = empty_handle();
  Status status(halo_semaphore_export(
      semaphore.get(), HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, &handle));
  expect_status(status, HALO_STATUS_FAILED_PRECONDITION,
                {"halo_semaphore_export", "EXPORTABLE"});
}

}  // namespace
}  // namespace halo_vulkan_test
