// Shared helpers of the opencl plugin tests: a fixture holding a registry
// that loads only the opencl plugin, its driver and first device, owners of
// statuses and objects, and small wrappers around buffers and submissions.
#ifndef HALO_TESTS_OPENCL_OPENCL_TEST_UTIL_HPP_
#define HALO_TESTS_OPENCL_OPENCL_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "halo/halo.h"

namespace halo_opencl_test {

// Owns a status; frees it on destruction.
class Status {
 public:
  explicit Status(halo_status_t status) noexcept : status_(status) {}
  ~Status() { halo_status_free(status_); }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;

  bool ok() const noexcept { return status_ == nullptr; }
  halo_status_code_t code() const noexcept { return halo_status_code(status_); }
  std::string message() const { return halo_status_message(status_); }
  // "CODE: message", for assertion output.
  std::string describe() const;

 private:
  halo_status_t status_;
};

#define HALO_EXPECT_OK(expression)                         \
  do {                                                     \
    ::halo_opencl_test::Status status_(expression);        \
    EXPECT_TRUE(status_.ok()) << status_.describe();       \
  } while (0)
#define HALO_ASSERT_OK(expression)                         \
  do {                                                     \
    ::halo_opencl_test::Status status_(expression);        \
    ASSERT_TRUE(status_.ok()) << status_.describe();       \
  } while (0)

template <class T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* object) const noexcept { Release(object); }
};
using SemaphorePtr =
    std::unique_ptr<halo_semaphore_t,
                    Releaser<halo_semaphore_t, halo_semaphore_release>>;
using BufferPtr =
    std::unique_ptr<halo_buffer_t, Releaser<halo_buffer_t, halo_buffer_release>>;
using CommandBufferPtr = std::unique_ptr<
    halo_command_buffer_t,
    Releaser<halo_command_buffer_t, halo_command_buffer_release>>;
using DevicePtr =
    std::unique_ptr<halo_device_t, Releaser<halo_device_t, halo_device_release>>;
using ExecutablePtr =
    std::unique_ptr<halo_executable_t,
                    Releaser<halo_executable_t, halo_executable_release>>;

// Returns a deadline |milliseconds| from now.
halo_time_ns_t deadline_in_ms(int64_t milliseconds);

// A registry with only the opencl plugin (from its build-tree manifest) and
// its driver; NULL driver when the plugin did not load.
class OpenClRegistry {
 public:
  OpenClRegistry();
  ~OpenClRegistry();
  halo_driver_t* driver() const { return driver_; }

 private:
  halo_registry_t* registry_ = nullptr;
  halo_driver_t* driver_ = nullptr;
};

// Each test gets a fresh registry and device 0; it skips (saying why) when
// the driver has no device.
class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  halo_driver_t* driver() const { return registry_->driver(); }
  halo_device_t* device() const { return device_; }
  const halo_device_capabilities_t& capabilities() const { return caps_; }

  // A second device of the fixture's OpenCL device: it shares the
  // first's context, but has a queue of its own.
  DevicePtr make_second_device();
  SemaphorePtr make_semaphore(uint64_t initial_value = 0);
  // A HOST_VISIBLE buffer with every usage.
  BufferPtr make_buffer(uint64_t size);
  // Builds OpenCL C |source|; returns the status, the executable in |*out|.
  halo_status_t build(const std::string& source, ExecutablePtr* out);
  // Writes |bytes| into |buffer| at 0 through a mapping.
  void write(halo_buffer_t* buffer, const std::vector<uint8_t>& bytes);
  // Reads |size| bytes of |buffer| from 0 through a mapping.
  std::vector<uint8_t> read(halo_buffer_t* buffer, uint64_t size);
  // Submits one command buffer (or none) between waits and signals, on
  // |on| (the fixture's device when NULL).
  halo_status_t submit(halo_command_buffer_t* command_buffer,
                       const std::vector<halo_semaphore_t*>& waits,
                       const std::vector<uint64_t>& wait_values,
                       const std::vector<halo_semaphore_t*>& signals,
                       const std::vector<uint64_t>& signal_values,
                       halo_device_t* on = nullptr);
  // A begun REUSABLE command buffer.
  CommandBufferPtr begin_command_buffer(
      halo_command_buffer_mode_t mode = HALO_COMMAND_BUFFER_MODE_REUSABLE);

 private:
  std::unique_ptr<OpenClRegistry> registry_;
  halo_device_t* device_ = nullptr;
  halo_device_capabilities_t caps_ = {};
};

}  // namespace halo_opencl_test

#endif  // HALO_TESTS_OPENCL_OPENCL_TEST_UTIL_HPP_
