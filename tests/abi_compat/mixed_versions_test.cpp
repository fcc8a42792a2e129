// Builds of different ABI 1.x minors working together (DESIGN.md §2.3). This
// one program is built twice (see CMakeLists.txt):
//  - against today's headers and libhalo, loading the seeded-bug plugin
//    (tests/cts_catches, no bug seeded) built against the next minor's
//    headers, where every struct has one more member: the plugin's vtables
//    and descriptor are larger than libhalo's sizeof;
//  - against the frozen ABI 1.0 headers, linked to a libhalo built against
//    those future headers, loading that plugin built against 1.0:
//    the plugin's vtables and this program's argument structs are smaller
//    than that libhalo's sizeof, and must still be taken as ABI 1.0's.
// Every struct here is sized with this program's own headers, as an
// application of its version would size it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "halo/halo.h"

namespace {

// Frees |status| and turns it into an assertion result naming its message.
::testing::AssertionResult Ok(halo_status_t status) {
  if (status == nullptr) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure()
                                       << halo_status_code_name(halo_status_code(status))
                                       << ": " << halo_status_message(status);
  halo_status_free(status);
  return failure;
}

// Frees |status| and returns its code.
halo_status_code_t CodeOf(halo_status_t status) {
  const halo_status_code_t code = halo_status_code(status);
  halo_status_free(status);
  return code;
}

class MixedVersionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* paths[] = {HALO_TEST_PLUGIN_LIBRARY};
    halo_registry_options_t options = {};
    options.struct_size = sizeof(options);
    options.flags = HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT |
                    HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
    options.plugin_path_count = 1;
    options.plugin_paths = paths;
    ASSERT_TRUE(Ok(halo_registry_create(&options, &registry_)));
    record_.struct_size = sizeof(record_);
    ASSERT_TRUE(Ok(halo_registry_plugin_record(registry_, 0, &record_)));
    ASSERT_EQ(record_.state, HALO_PLUGIN_STATE_LOADED) << record_.skip_reason;
    ASSERT_TRUE(Ok(halo_registry_create_device(registry_, 0, nullptr, &device_)));
  }

  void TearDown() override {
    halo_device_release(device_);
    halo_registry_release(registry_);
  }

  halo_semaphore_t* CreateSemaphore(halo_device_t* device, uint64_t value) {
    halo_semaphore_t* semaphore = nullptr;
    EXPECT_TRUE(Ok(halo_semaphore_create(device, value, HALO_SEMAPHORE_FLAG_NONE,
                                         &semaphore)));
    return semaphore;
  }

  halo_registry_t* registry_ = nullptr;
  halo_plugin_record_t record_ = {};
  halo_device_t* device_ = nullptr;
};

TEST_F(MixedVersionsTest, ThePluginLoadsWithTheVersionItWasBuiltFor) {
  EXPECT_STREQ(record_.name, HALO_TEST_PLUGIN_NAME);
  EXPECT_EQ(record_.abi_version, HALO_MAKE_VERSION(1, HALO_TEST_PLUGIN_ABI_MINOR));
  EXPECT_EQ(record_.struct_size, sizeof(record_));
}

TEST_F(MixedVersionsTest, InfoStructsAreFilledUpToTheCallersSize) {
  halo_device_params_t params = {};
  params.struct_size = sizeof(params);
  halo_device_t* device = nullptr;
  ASSERT_TRUE(Ok(halo_registry_create_device(registry_, 0, &params, &device)));
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  EXPECT_TRUE(Ok(halo_device_query_info(device, &info)));
  EXPECT_EQ(info.struct_size, sizeof(info));
  EXPECT_GT(std::strlen(info.name), 0u);
  halo_device_capabilities_t capabilities = {};
  capabilities.struct_size = sizeof(capabilities);
  EXPECT_TRUE(Ok(halo_device_query_capabilities(device, &capabilities)));
  EXPECT_EQ(capabilities.struct_size, sizeof(capabilities));
  EXPECT_GE(capabilities.queue_count, 1u);
  halo_device_release(device);
}

TEST_F(MixedVersionsTest, SemaphoresSignalWaitAndCallBack) {
  halo_semaphore_t* semaphore = CreateSemaphore(device_, 0);
  ASSERT_NE(semaphore, nullptr);
  EXPECT_TRUE(Ok(halo_semaphore_signal(semaphore, 1)));
  uint64_t value = 0;
  EXPECT_TRUE(Ok(halo_semaphore_query(semaphore, &value)));
  EXPECT_EQ(value, 1u);
  EXPECT_TRUE(Ok(halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_PAST)));

  std::atomic<int> calls{0};
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 2;
  timepoint.callback = [](void* user_data, halo_timepoint_t*, halo_status_t status) {
    halo_status_free(status);
    static_cast<std::atomic<int>*>(user_data)->fetch_add(1);
  };
  timepoint.user_data = &calls;
  ASSERT_TRUE(Ok(halo_semaphore_acquire_timepoint(semaphore, &timepoint)));
  EXPECT_TRUE(Ok(halo_semaphore_signal(semaphore, 2)));
  // A cancel that returns false has let the callback run to completion.
  bool cancelled = true;
  EXPECT_TRUE(Ok(halo_semaphore_cancel_timepoint(semaphore, &timepoint, &cancelled)));
  EXPECT_FALSE(cancelled);
  EXPECT_EQ(calls.load(), 1);
  halo_semaphore_release(semaphore);
}

TEST_F(MixedVersionsTest, QueueExecuteTakesTheCallersInfo) {
  halo_semaphore_t* start = CreateSemaphore(device_, 0);
  halo_semaphore_t* done = CreateSemaphore(device_, 0);
  const uint64_t one = 1;
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  info.wait_semaphores = &start;
  info.wait_values = &one;
  info.signal_count = 1;
  info.signal_semaphores = &done;
  info.signal_values = &one;
  ASSERT_TRUE(Ok(halo_device_queue_execute(device_, &info)));
  EXPECT_TRUE(Ok(halo_semaphore_signal(start, 1)));
  EXPECT_TRUE(Ok(halo_semaphore_wait(done, 1, HALO_DEADLINE_INFINITE_FUTURE)));
  halo_semaphore_release(done);
  halo_semaphore_release(start);
}

// Semaphores of two devices: libhalo waits on them itself, through
// timepoints it registers with its own timepoint structs.
TEST_F(MixedVersionsTest, MultiWaitAcrossDevices) {
  halo_device_t* other_device = nullptr;
  ASSERT_TRUE(Ok(halo_registry_create_device(registry_, 0, nullptr, &other_device)));
  halo_semaphore_t* semaphores[] = {CreateSemaphore(device_, 1),
                                    CreateSemaphore(other_device, 0)};
  const uint64_t values[] = {1, 1};
  EXPECT_EQ(CodeOf(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, semaphores, values,
                                        HALO_DEADLINE_INFINITE_PAST)),
            HALO_STATUS_DEADLINE_EXCEEDED);
  EXPECT_TRUE(Ok(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 2, semaphores, values,
                                      HALO_DEADLINE_INFINITE_PAST)));
  std::thread signaller([&] { EXPECT_TRUE(Ok(halo_semaphore_signal(semaphores[1], 1))); });
  EXPECT_TRUE(Ok(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, semaphores, values,
                                      HALO_DEADLINE_INFINITE_FUTURE)));
  signaller.join();
  for (halo_semaphore_t* semaphore : semaphores) halo_semaphore_release(semaphore);
  halo_device_release(other_device);
}

// That plugin has no buffers or executables: libhalo must get as far
// as asking it, so the caller's argument struct was accepted.
TEST_F(MixedVersionsTest, ArgumentStructsReachThePlugin) {
  halo_buffer_params_t buffer_params = {};
  buffer_params.struct_size = sizeof(buffer_params);
  buffer_params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  buffer_params.size = 64;
  halo_buffer_t* buffer = nullptr;
  EXPECT_EQ(CodeOf(halo_buffer_allocate(device_, &buffer_params, &buffer)),
            HALO_STATUS_UNIMPLEMENTED);
  const char data[] = "kernel";
  halo_executable_params_t executable_params = {};
  executable_params.struct_size = sizeof(executable_params);
  executable_params.format = "template";
  executable_params.data = data;
  executable_params.data_size = sizeof(data);
  halo_executable_t* executable = nullptr;
  EXPECT_EQ(CodeOf(halo_executable_create(device_, &executable_params, &executable)),
            HALO_STATUS_UNIMPLEMENTED);
}

// Buffers, command buffers and executables as a plugin of this program's
// version hands them over: vtables of this build's size, whose entries
// answer fixed values. That plugin makes none of these.
namespace fake {

constexpr uint64_t kBufferSize = 4096;
constexpr uint32_t kEntryPoints = 3;
std::atomic<int> dispatches{0};

void destroy(halo_object_t*) {}
uint64_t buffer_size(halo_buffer_t*) { return kBufferSize; }
halo_status_t dispatch(halo_command_buffer_t*, const halo_dispatch_params_t*) {
  dispatches.fetch_add(1);
  return nullptr;
}
uint32_t entry_point_count(halo_executable_t*) { return kEntryPoints; }

// Returns a vtable of type |Vtable| for |type|, every entry NULL.
template <typename Vtable>
Vtable EmptyVtable(halo_object_type_t type) {
  Vtable vtable = {};
  vtable.object = {sizeof(Vtable), static_cast<uint32_t>(type), destroy};
  return vtable;
}

const halo_buffer_vtable_t kBufferVtable = [] {
  auto vtable = EmptyVtable<halo_buffer_vtable_t>(HALO_OBJECT_TYPE_BUFFER);
  vtable.size = buffer_size;
  return vtable;
}();
const halo_command_buffer_vtable_t kCommandBufferVtable = [] {
  auto vtable = EmptyVtable<halo_command_buffer_vtable_t>(HALO_OBJECT_TYPE_COMMAND_BUFFER);
  vtable.dispatch = dispatch;
  return vtable;
}();
const halo_executable_vtable_t kExecutableVtable = [] {
  auto vtable = EmptyVtable<halo_executable_vtable_t>(HALO_OBJECT_TYPE_EXECUTABLE);
  vtable.entry_point_count = entry_point_count;
  return vtable;
}();

}  // namespace fake

TEST(MixedVersionsObjectsTest, VtablesOfTheCallersSizeAreAccepted) {
  halo_object_t buffer = HALO_OBJECT_HEADER_INIT(&fake::kBufferVtable);
  halo_object_t command_buffer = HALO_OBJECT_HEADER_INIT(&fake::kCommandBufferVtable);
  halo_object_t executable = HALO_OBJECT_HEADER_INIT(&fake::kExecutableVtable);
  EXPECT_EQ(halo_buffer_size(reinterpret_cast<halo_buffer_t*>(&buffer)), fake::kBufferSize);
  uint32_t count = 0;
  EXPECT_TRUE(Ok(halo_executable_entry_point_count(
      reinterpret_cast<halo_executable_t*>(&executable), &count)));
  EXPECT_EQ(count, fake::kEntryPoints);
  const int dispatches = fake::dispatches.load();
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.executable = reinterpret_cast<halo_executable_t*>(&executable);
  params.workgroup_count[0] = params.workgroup_count[1] = params.workgroup_count[2] = 1;
  EXPECT_TRUE(Ok(halo_command_buffer_dispatch(
      reinterpret_cast<halo_command_buffer_t*>(&command_buffer), &params)));
  EXPECT_EQ(fake::dispatches.load(), dispatches + 1);
}

}  // namespace
