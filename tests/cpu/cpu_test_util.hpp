// Shared helpers of the cpu plugin tests: a fixture holding a registry that
// loads only the cpu plugin, its driver and device, and owners for statuses
// and semaphores.
#ifndef HALO_TESTS_CPU_CPU_TEST_UTIL_HPP_
#define HALO_TESTS_CPU_CPU_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "halo/halo.h"

namespace halo_cpu_test {

// Owns a status; frees it on destruction.
class Status {
 public:
  explicit Status(halo_status_t status) noexcept : status_(status) {}
  ~Status() { halo_status_free(status_); }
  Status(Status&& other) noexcept : status_(other.status_) {
    other.status_ = nullptr;
  }
  Status(const Status&) = delete;
  Status& operator=(const Status&) = delete;

  bool ok() const noexcept { return status_ == nullptr; }
  halo_status_code_t code() const noexcept { return halo_status_code(status_); }
  std::string message() const { return halo_status_message(status_); }
  halo_status_t get() const noexcept { return status_; }
  // "CODE: message", for assertion output.
  std::string describe() const;

 private:
  halo_status_t status_;
};

#define HALO_EXPECT_OK(expression)                       \
  do {                                                   \
    ::halo_cpu_test::Status status_(expression);         \
    EXPECT_TRUE(status_.ok()) << status_.describe();     \
  } while (0)
#define HALO_ASSERT_OK(expression)                       \
  do {                                                   \
    ::halo_cpu_test::Status status_(expression);         \
    ASSERT_TRUE(status_.ok()) << status_.describe();     \
  } while (0)

struct SemaphoreDeleter {
  void operator()(halo_semaphore_t* semaphore) const noexcept {
    halo_semaphore_release(semaphore);
  }
};
// An owned semaphore reference.
using SemaphorePtr = std::unique_ptr<halo_semaphore_t, SemaphoreDeleter>;

struct DeviceDeleter {
  void operator()(halo_device_t* device) const noexcept {
    halo_device_release(device);
  }
};
using DevicePtr = std::unique_ptr<halo_device_t, DeviceDeleter>;

// Returns a deadline |milliseconds| from now.
halo_time_ns_t deadline_in_ms(int64_t milliseconds);

// Each test gets a fresh registry with only the cpu plugin, its driver and
// device 0. Everything is released in TearDown, the registry last.
class CpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Returns a new semaphore of device() with |initial_value|.
  SemaphorePtr make_semaphore(uint64_t initial_value = 0);
  // Returns |count| new semaphores of device() at 0.
  std::vector<SemaphorePtr> make_semaphores(size_t count);
  // Creates another device of the cpu driver.
  DevicePtr make_device();

  // Returns the payload, expecting OK.
  uint64_t query(halo_semaphore_t* semaphore);
  // Submits a barrier on |device| (device() when NULL), expecting OK.
  void submit(const std::vector<halo_semaphore_t*>& waits,
              const std::vector<uint64_t>& wait_values,
              const std::vector<halo_semaphore_t*>& signals,
              const std::vector<uint64_t>& signal_values,
              halo_device_t* device = nullptr);

  halo_driver_t* driver() const { return driver_; }
  halo_device_t* device() const { return device_; }

 private:
  halo_registry_t* registry_ = nullptr;
  halo_driver_t* driver_ = nullptr;
  halo_device_t* device_ = nullptr;
};

}  // namespace halo_cpu_test

#endif  // HALO_TESTS_CPU_CPU_TEST_UTIL_HPP_
