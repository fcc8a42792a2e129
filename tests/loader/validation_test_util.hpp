// Shared helpers of the validation tests: a registry that validates, with
// the cpu plugin's device, and the loader log (stderr) captured, so that a
// test waits for a report instead of sleeping.
#ifndef HALO_TESTS_LOADER_VALIDATION_TEST_UTIL_HPP_
#define HALO_TESTS_LOADER_VALIDATION_TEST_UTIL_HPP_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {

// Sends everything written to stderr (fd 2) to a pipe while alive, keeps a
// copy and echoes it to the real stderr.
class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  // Everything captured so far.
  std::string text();
  // Blocks until the captured text contains |needle|; false after a minute
  // without it (a safety net for a failing test, never a timing check).
  bool wait_for(const std::string& needle);
  // Restores stderr and returns everything captured.
  std::string stop();

 private:
  void read_loop();

  int saved_fd_ = -1;
  int read_fd_ = -1;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string text_;
  std::thread reader_;
};

// Counts the non-overlapping occurrences of |needle| in |text|.
size_t count_of(const std::string& text, const std::string& needle);

// A validating registry with the cpu plugin and its device. Tests skip when
// the build has no cpu plugin.
class ValidationTest : public LoaderTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Creates the registry (with |flags| added) and device; SetUp does it with
  // HALO_REGISTRY_FLAG_VALIDATION unless |create_in_set_up_| is false.
  void open(halo_registry_flags_t flags);

  halo_semaphore_t* semaphore(uint64_t initial = 0);
  halo_buffer_t* buffer(uint64_t size, halo_buffer_usage_t usage);
  // A command buffer recorded by |record|, ended.
  template <typename Record>
  halo_command_buffer_t* command_buffer(Record record) {
    halo_command_buffer_t* command_buffer = nullptr;
    EXPECT_EQ(halo_command_buffer_create(device_, HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
                                         &command_buffer),
              HALO_OK);
    EXPECT_EQ(halo_command_buffer_begin(command_buffer), HALO_OK);
    record(command_buffer);
    EXPECT_EQ(halo_command_buffer_end(command_buffer), HALO_OK);
    command_buffers_.push_back(command_buffer);
    return command_buffer;
  }
  // halo_device_queue_execute on the device.
  halo_status_t execute(std::vector<halo_semaphore_t*> waits,
                        std::vector<uint64_t> wait_values,
                        std::vector<halo_semaphore_t*> signals,
                        std::vector<uint64_t> signal_values,
                        std::vector<halo_command_buffer_t*> command_buffers = {});
  // The wait_for_flag kernel's executable (plugins/wait_for_flag_kernel.c).
  halo_executable_t* wait_for_flag_kernel();
  // Waits for |semaphore| to reach |value|, failing the test after a minute.
  void expect_reaches(halo_semaphore_t* semaphore, uint64_t value);

  bool create_in_set_up_ = true;
  halo_registry_t* registry_ = nullptr;
  halo_device_t* device_ = nullptr;
  std::vector<halo_semaphore_t*> semaphores_;
  std::vector<halo_buffer_t*> buffers_;
  std::vector<halo_command_buffer_t*> command_buffers_;
  std::vector<halo_executable_t*> executables_;
};

}  // namespace halo_test

#endif  // HALO_TESTS_LOADER_VALIDATION_TEST_UTIL_HPP_
