// Shared helpers of the vulkan plugin tests: a registry that loads the
// vulkan and cpu plugins from their build-tree manifests, a fixture holding
// the vulkan driver's first device, owners of statuses and objects, and
// small wrappers around buffers, command buffers, submissions and the CTS
// kernels.
#ifndef HALO_TESTS_VULKAN_VULKAN_TEST_UTIL_HPP_
#define HALO_TESTS_VULKAN_VULKAN_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "halo/halo.h"

namespace halo_vulkan_test {

// Every wait that has to block gets this long before it counts as a hang.
inline constexpr int64_t kGenerousMs = 20000;

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

#define HALO_EXPECT_OK(expression)                   \
  do {                                               \
    ::halo_vulkan_test::Status status_(expression);  \
    EXPECT_TRUE(status_.ok()) << status_.describe(); \
  } while (0)
#define HALO_ASSERT_OK(expression)                   \
  do {                                               \
    ::halo_vulkan_test::Status status_(expression);  \
    ASSERT_TRUE(status_.ok()) << status_.describe(); \
  } while (0)

// Expects |status| to have |code| and a message containing each of |words|.
void expect_status(const Status& status, halo_status_code_t code,
                   const std::vector<std::string>& words);

template <class T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* object) const noexcept { Release(object); }
};
using DevicePtr = std::unique_ptr<halo_device_t,
                                  Releaser<halo_device_t, halo_device_release>>;
using SemaphorePtr =
    std::unique_ptr<halo_semaphore_t,
                    Releaser<halo_semaphore_t, halo_semaphore_release>>;
using BufferPtr = std::unique_ptr<halo_buffer_t,
                                  Releaser<halo_buffer_t, halo_buffer_release>>;
using CommandBufferPtr = std::unique_ptr<
    halo_command_buffer_t,
    Releaser<halo_command_buffer_t, halo_command_buffer_release>>;
using ExecutablePtr =
    std::unique_ptr<halo_executable_t,
                    Releaser<halo_executable_t, halo_executable_release>>;

// Returns a deadline |milliseconds| from now.
halo_time_ns_t deadline_in_ms(int64_t milliseconds);

// Yields until |done| returns true or kGenerousMs (the hang guard) pass;
// returns |done|'s last answer. For what the notification thread does on
// its own (timepoint callbacks, dropping the last references), which gives
// a test nothing to wait on.
template <class Done>
bool spin_until(Done done) {
  const halo_time_ns_t deadline = deadline_in_ms(kGenerousMs);
  while (!done()) {
    if (halo_time_now_ns() >= deadline) return done();
    std::this_thread::yield();
  }
  return true;
}

// Returns the driver's description ("" when it cannot be read).
std::string driver_description(halo_driver_t* driver);

// A registry with only the build tree's vulkan and cpu plugins, which the
// environment cannot change; NULL drivers for plugins that did not load.
class TestRegistry {
 public:
  TestRegistry();
  ~TestRegistry();
  TestRegistry(const TestRegistry&) = delete;
  TestRegistry& operator=(const TestRegistry&) = delete;

  halo_registry_t* registry() const { return registry_; }
  halo_driver_t* vulkan() const { return vulkan_; }
  halo_driver_t* cpu() const { return cpu_; }

 private:
  halo_registry_t* registry_ = nullptr;
  halo_driver_t* vulkan_ = nullptr;
  halo_driver_t* cpu_ = nullptr;
};

// Returns true when |info| describes Mesa's lavapipe (llvmpipe) device, the
// one these tests are written against.
bool is_lavapipe(const halo_device_info_t& info);

// Each test gets a fresh registry and the vulkan driver's device 0; it skips
// (saying why) when the driver has no device.
class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  halo_driver_t* driver() const { return registry_->vulkan(); }
  halo_device_t* device() const { return device_.get(); }
  const halo_device_info_t& info() const { return info_; }
  const halo_device_capabilities_t& capabilities() const { return caps_; }

  // A second device of the same physical device (a VkDevice of its own).
  halo_device_t* second_device();
  // The cpu plugin's device, for foreign semaphores.
  halo_device_t* cpu_device();

  // A semaphore of |on| (default: the device under test).
  SemaphorePtr make_semaphore(uint64_t initial_value = 0,
                              halo_device_t* on = nullptr);
  // A HOST_VISIBLE | HOST_COHERENT buffer with every usage.
  BufferPtr make_buffer(uint64_t size, halo_device_t* on = nullptr);
  // Writes |words| into |buffer| at 0 through a mapping.
  void write(halo_buffer_t* buffer, const std::vector<uint32_t>& words);
  // Reads |count| words of |buffer| from 0 through a mapping.
  std::vector<uint32_t> read(halo_buffer_t* buffer, size_t count);
  // A begun command buffer of |on| (default: the device under test).
  CommandBufferPtr begin_command_buffer(
      halo_command_buffer_mode_t mode = HALO_COMMAND_BUFFER_MODE_REUSABLE,
      halo_device_t* on = nullptr);
  // An ended command buffer that fills |buffer| with |pattern|.
  CommandBufferPtr fill_command_buffer(halo_buffer_t* buffer, uint32_t pattern);
  // Submits one command buffer (or none) between waits and signals.
  halo_status_t submit(halo_command_buffer_t* command_buffer,
                       const std::vector<halo_semaphore_t*>& waits,
                       const std::vector<uint64_t>& wait_values,
                       const std::vector<halo_semaphore_t*>& signals,
                       const std::vector<uint64_t>& signal_values);
  // Waits (a generous deadline) for |semaphore| to reach |value|.
  halo_status_t wait(halo_semaphore_t* semaphore, uint64_t value);
  // Creates a "spirv" executable of |bytes| (|size| bytes at |data|) on
  // |on|; the executable lands in |*out| (NULL on failure).
  halo_status_t create_executable(const void* data, size_t size,
                                  ExecutablePtr* out,
                                  halo_device_t* on = nullptr);
  halo_status_t create_executable(const std::vector<uint8_t>& bytes,
                                  ExecutablePtr* out,
                                  halo_device_t* on = nullptr) {
    return create_executable(bytes.data(), bytes.size(), out, on);
  }

 private:
  std::unique_ptr<TestRegistry> registry_;
  DevicePtr device_;
  DevicePtr second_device_;
  DevicePtr cpu_device_;
  halo_device_info_t info_ = {};
  halo_device_capabilities_t caps_ = {};
};

// The bytes of CTS kernel |name| in SPIR-V (<build>/share/halo/cts/testdata/
// kernels/|name|.spirv); empty, with a test failure, when it cannot be read.
std::vector<uint8_t> kernel_spirv(const std::string& name);

}  // namespace halo_vulkan_test

#endif  // HALO_TESTS_VULKAN_VULKAN_TEST_UTIL_HPP_
