// The public API checks its arguments in one place, libhalo (DESIGN.md §2, §3,
// §9): NULL out-parameters and handles of the wrong type are INVALID_ARGUMENT
// with a message naming the function, never a crash. The test plugin's device
// implements nothing beyond info and capabilities, so every case here is
// answered by libhalo's checks alone.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

class ApiArgumentsTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({good_manifest("test_good")});
    driver_ = registry_.driver(0);
    device_ = registry_.create_device(0);
  }

  // The driver and device passed off as a handle of another type.
  halo_device_t* driver_as_device() const {
    return reinterpret_cast<halo_device_t*>(driver_.get());
  }
  halo_driver_t* device_as_driver() const {
    return reinterpret_cast<halo_driver_t*>(device_.get());
  }
  halo_semaphore_t* device_as_semaphore() const {
    return reinterpret_cast<halo_semaphore_t*>(device_.get());
  }

  halo::Registry registry_;
  halo::Driver driver_;
  halo::Device device_;
};

TEST_F(ApiArgumentsTest, RegistryCreateChecksItsArguments) {
  expect_status(halo_registry_create(nullptr, nullptr), HALO_STATUS_INVALID_ARGUMENT,
                "halo_registry_create");

  halo_registry_t* registry = nullptr;
  halo_registry_options_t options{};
  options.struct_size = 0;
  expect_status(halo_registry_create(&options, &registry),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_create");
  EXPECT_EQ(registry, nullptr);

  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
  options.plugin_path_count = 1;
  options.plugin_paths = nullptr;
  expect_status(halo_registry_create(&options, &registry),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_create");
  EXPECT_EQ(registry, nullptr);
}

TEST_F(ApiArgumentsTest, RegistryQueriesCheckTheirArguments) {
  halo_registry_t* registry = registry_.get();
  size_t count = 0;
  expect_status(halo_registry_plugin_count(registry, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_plugin_count");
  expect_status(halo_registry_plugin_count(nullptr, &count),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_plugin_count");
  expect_status(halo_registry_plugin_record(registry, 0, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_plugin_record");
  expect_status(halo_registry_driver_count(registry, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_driver_count");
  expect_status(halo_registry_driver(registry, 0, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_driver");
  expect_status(halo_registry_find_driver(registry, "test_good", nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_find_driver");
  halo_driver_t* driver = nullptr;
  expect_status(halo_registry_find_driver(registry, nullptr, &driver),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_find_driver");
  expect_status(halo_registry_find_driver(registry, "test_missing", &driver),
                HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(driver, nullptr);
  expect_status(halo_registry_device_count(registry, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_device_count");
  expect_status(halo_registry_device_info(registry, 0, nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_device_info");
  expect_status(halo_registry_create_device(registry, 0, nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_registry_create_device");
}

TEST_F(ApiArgumentsTest, RegistryIndexesPastTheEndAreOutOfRange) {
  halo_registry_t* registry = registry_.get();
  halo_plugin_record_t record{};
  record.struct_size = sizeof(record);
  expect_status(halo_registry_plugin_record(registry, 1, &record),
                HALO_STATUS_OUT_OF_RANGE);
  halo_driver_t* driver = nullptr;
  expect_status(halo_registry_driver(registry, 1, &driver), HALO_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(driver, nullptr);
  halo_device_info_t info{};
  info.struct_size = sizeof(info);
  expect_status(halo_registry_device_info(registry, 1, &info, nullptr),
                HALO_STATUS_OUT_OF_RANGE);
  halo_device_t* device = nullptr;
  expect_status(halo_registry_create_device(registry, 1, nullptr, &device),
                HALO_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(device, nullptr);
}

TEST_F(ApiArgumentsTest, DriverFunctionsCheckTheirArguments) {
  halo_driver_info_t info{};
  info.struct_size = sizeof(info);
  expect_status(halo_driver_query_info(driver_.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_query_info");
  expect_status(halo_driver_query_info(nullptr, &info), HALO_STATUS_INVALID_ARGUMENT,
                "halo_driver_query_info");
  expect_status(halo_driver_device_count(driver_.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_device_count");
  expect_status(halo_driver_query_device_info(driver_.get(), 0, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_query_device_info");
  halo_device_info_t device_info{};
  device_info.struct_size = sizeof(device_info);
  expect_status(halo_driver_query_device_info(driver_.get(), 1, &device_info),
                HALO_STATUS_OUT_OF_RANGE);
  expect_status(halo_driver_create_device(driver_.get(), 1, nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_create_device");
  halo_device_t* device = nullptr;
  expect_status(halo_driver_create_device(driver_.get(), 999, nullptr, &device),
                HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(device, nullptr);
}

TEST_F(ApiArgumentsTest, WrongTypeHandlesAreInvalidArguments) {
  halo_device_info_t device_info{};
  device_info.struct_size = sizeof(device_info);
  expect_status(halo_device_query_info(driver_as_device(), &device_info),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_query_info");
  halo_device_capabilities_t caps{};
  caps.struct_size = sizeof(caps);
  expect_status(halo_device_query_capabilities(driver_as_device(), &caps),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_query_capabilities");
  halo_driver_info_t driver_info{};
  driver_info.struct_size = sizeof(driver_info);
  expect_status(halo_driver_query_info(device_as_driver(), &driver_info),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_query_info");
  size_t count = 0;
  expect_status(halo_driver_device_count(device_as_driver(), &count),
                HALO_STATUS_INVALID_ARGUMENT, "halo_driver_device_count");
  halo_semaphore_t* semaphore = nullptr;
  expect_status(halo_semaphore_create(driver_as_device(), 0, 0, &semaphore),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_create");
  EXPECT_EQ(semaphore, nullptr);
  uint64_t value = 0;
  expect_status(halo_semaphore_query(device_as_semaphore(), &value),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_query");
  expect_status(halo_semaphore_signal(device_as_semaphore(), 1),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_signal");
  expect_status(halo_semaphore_wait(device_as_semaphore(), 1, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_wait");
  halo_semaphore_compatibility_t compatibility = 0;
  expect_status(halo_device_semaphore_compatibility(device_.get(), device_as_semaphore(),
                                                    &compatibility),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_semaphore_compatibility");
  EXPECT_EQ(halo_buffer_size(reinterpret_cast<halo_buffer_t*>(device_.get())), 0u);

  EXPECT_EQ(halo_object_type(reinterpret_cast<halo_object_t*>(driver_.get())),
            HALO_OBJECT_TYPE_DRIVER);
  EXPECT_EQ(halo_object_type(reinterpret_cast<halo_object_t*>(device_.get())),
            HALO_OBJECT_TYPE_DEVICE);
  EXPECT_EQ(halo_object_type(nullptr), HALO_OBJECT_TYPE_NONE);
}

TEST_F(ApiArgumentsTest, DeviceFunctionsCheckTheirArguments) {
  expect_status(halo_device_query_info(device_.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_query_info");
  expect_status(halo_device_query_capabilities(device_.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_query_capabilities");
  expect_status(halo_device_semaphore_compatibility(device_.get(), nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_semaphore_compatibility");
  expect_status(halo_device_queue_execute(device_.get(), nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_queue_execute");
  expect_status(halo_device_queue_execute(nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_queue_execute");
  expect_status(halo_device_wait_idle(nullptr, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_wait_idle");

  // A count with no array is caught before the plugin sees the submission.
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  expect_status(halo_device_queue_execute(device_.get(), &info),
                HALO_STATUS_INVALID_ARGUMENT, "halo_device_queue_execute");
}

TEST_F(ApiArgumentsTest, SemaphoreFunctionsCheckTheirArguments) {
  expect_status(halo_semaphore_create(device_.get(), 0, 0, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_create");
  halo_semaphore_t* semaphore = nullptr;
  expect_status(halo_semaphore_create(device_.get(), HALO_SEMAPHORE_MAX_VALUE + 1, 0,
                                      &semaphore),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_create");
  EXPECT_EQ(semaphore, nullptr);
  // A valid request reaches the plugin, which has no semaphores.
  expect_status(halo_semaphore_create(device_.get(), 0, 0, &semaphore),
                HALO_STATUS_UNIMPLEMENTED);
  EXPECT_EQ(semaphore, nullptr);

  uint64_t value = 0;
  expect_status(halo_semaphore_query(nullptr, &value), HALO_STATUS_INVALID_ARGUMENT,
                "halo_semaphore_query");
  expect_status(halo_semaphore_signal(nullptr, 1), HALO_STATUS_INVALID_ARGUMENT,
                "halo_semaphore_signal");
  // fail() takes ownership of the status even when it refuses the handle.
  expect_status(halo_semaphore_fail(nullptr, halo_status_create(HALO_STATUS_ABORTED, "x")),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_fail");
  expect_status(halo_semaphore_acquire_timepoint(nullptr, nullptr),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_acquire_timepoint");
  bool cancelled = false;
  expect_status(halo_semaphore_cancel_timepoint(nullptr, nullptr, &cancelled),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphore_cancel_timepoint");

  // An empty multi-wait is OK at once; a count without arrays is not.
  EXPECT_EQ(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 0, nullptr, nullptr,
                                 HALO_DEADLINE_INFINITE_PAST),
            HALO_OK);
  EXPECT_EQ(halo_semaphores_wait(HALO_WAIT_MODE_ANY, 0, nullptr, nullptr,
                                 HALO_DEADLINE_INFINITE_PAST),
            HALO_OK);
  expect_status(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 1, nullptr, nullptr,
                                     HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphores_wait");
}

// The device leaves allocate_buffer, create_command_buffer and
// create_executable NULL; libhalo answers UNIMPLEMENTED for them.
TEST_F(ApiArgumentsTest, MissingOptionalEntriesAreUnimplemented) {
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_MAPPING;
  params.size = 64;
  halo_buffer_t* buffer = nullptr;
  expect_status(halo_buffer_allocate(device_.get(), &params, &buffer),
                HALO_STATUS_UNIMPLEMENTED);
  EXPECT_EQ(buffer, nullptr);
  halo_command_buffer_t* command_buffer = nullptr;
  expect_status(halo_command_buffer_create(device_.get(),
                                           HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                           &command_buffer),
                HALO_STATUS_UNIMPLEMENTED);
  EXPECT_EQ(command_buffer, nullptr);
}

TEST_F(ApiArgumentsTest, ReleaseFunctionsAcceptNull) {
  halo_registry_release(nullptr);
  halo_driver_release(nullptr);
  halo_device_release(nullptr);
  halo_semaphore_release(nullptr);
  halo_buffer_release(nullptr);
  halo_command_buffer_release(nullptr);
  halo_executable_release(nullptr);
  halo_object_release(nullptr);
  halo_driver_retain(nullptr);
  halo_device_retain(nullptr);
  halo_object_retain(nullptr);
  SUCCEED();
}

// Info structs are filled only up to the caller's struct_size: an older
// caller's smaller struct is never overrun. (libhalo may instead refuse a size
// below ABI 1.0's; either way nothing past the size is written.)
TEST_F(ApiArgumentsTest, InfoIsNeverWrittenPastTheCallersSize) {
  struct Guarded {
    halo_device_info_t info;
    unsigned char canary[64];
  } guarded;
  std::memset(&guarded, 0xAB, sizeof(guarded));
  const uint32_t old_size = offsetof(halo_device_info_t, vendor);
  guarded.info.struct_size = old_size;
  halo::StatusPtr status(halo_device_query_info(device_.get(), &guarded.info));
  if (status == nullptr) {
    EXPECT_LE(guarded.info.struct_size, old_size);
    EXPECT_EQ(halo::to_string(guarded.info.name), "test device");
  } else {
    EXPECT_EQ(halo_status_code(status.get()), HALO_STATUS_INVALID_ARGUMENT)
        << halo_status_message(status.get());
  }
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&guarded);
  for (size_t i = old_size; i < sizeof(guarded); ++i) {
    ASSERT_EQ(bytes[i], 0xAB) << "byte " << i << " is past the caller's struct_size";
  }
}

TEST(DeadlineTest, AfterSaturatesToTheInfiniteConstants) {
  EXPECT_EQ(halo_deadline_after_ns(INT64_MAX), HALO_DEADLINE_INFINITE_FUTURE);
  // A negative timeout is already past, whatever the clock reads next.
  const halo_time_ns_t past = halo_deadline_after_ns(-1);
  EXPECT_LT(past, halo_time_now_ns());
  EXPECT_GT(halo_time_now_ns(), 0);
}

}  // namespace
}  // namespace halo_test
