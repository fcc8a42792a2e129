// Helpers of the cpu plugin's work tests: owners for buffers, command
// buffers and executables, the test kernels, and recording/submission
// shortcuts on top of CpuTest.
#ifndef HALO_TESTS_CPU_WORK_TEST_UTIL_HPP_
#define HALO_TESTS_CPU_WORK_TEST_UTIL_HPP_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"

// Expects OK from an expression that yields a Status (which keeps
// ownership; HALO_EXPECT_OK is for raw halo_status_t).
#define HALO_EXPECT_STATUS_OK(expression)                  \
  do {                                                     \
    ::halo_cpu_test::Status status_ = (expression);        \
    EXPECT_TRUE(status_.ok()) << status_.describe();       \
  } while (0)

namespace halo_cpu_test {

struct BufferDeleter {
  void operator()(halo_buffer_t* buffer) const noexcept {
    halo_buffer_release(buffer);
  }
};
using BufferPtr = std::unique_ptr<halo_buffer_t, BufferDeleter>;

struct CommandBufferDeleter {
  void operator()(halo_command_buffer_t* command_buffer) const noexcept {
    halo_command_buffer_release(command_buffer);
  }
};
using CommandBufferPtr =
    std::unique_ptr<halo_command_buffer_t, CommandBufferDeleter>;

struct ExecutableDeleter {
  void operator()(halo_executable_t* executable) const noexcept {
    halo_executable_release(executable);
  }
};
using ExecutablePtr = std::unique_ptr<halo_executable_t, ExecutableDeleter>;

inline constexpr halo_buffer_usage_t kAllUsage =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
inline constexpr halo_memory_type_t kHostMemory =
    HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;

// Returns the bytes of test kernel library |name| (e.g. "test_kernels",
// "broken_abi_version"); fails the test when it cannot be read.
std::vector<uint8_t> kernel_bytes(const std::string& name);

// Dispatch constants laid out as cpu_kernel.h says: each value at the next
// offset aligned to its own size.
class Constants {
 public:
  template <class T>
  Constants& add(T value) {
    size_t offset = (bytes_.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    bytes_.resize(offset + sizeof(T));
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// One dispatch to record.
struct DispatchSpec {
  halo_executable_t* executable = nullptr;
  std::string entry_point;
  uint32_t workgroups[3] = {1, 1, 1};
  std::vector<halo_buffer_t*> buffers;
  Constants constants;
};

class WorkTest : public CpuTest {
 public:
  // Public so that helpers outside the test bodies can use them too.
  // Allocates a buffer of |device| (device() when NULL), expecting OK.
  BufferPtr make_buffer(uint64_t size, halo_buffer_usage_t usage = kAllUsage,
                        halo_memory_type_t memory_type = kHostMemory,
                        halo_device_t* device = nullptr);
  // Maps all of |buffer|, expecting OK.
  template <class T>
  T* map(halo_buffer_t* buffer) {
    void* pointer = nullptr;
    HALO_EXPECT_OK(
        halo_buffer_map_range(buffer, 0, HALO_WHOLE_BUFFER, &pointer));
    return static_cast<T*>(pointer);
  }
  // Creates a command buffer of |device| (device() when NULL) in |mode| and
  // begins it, expecting OK.
  CommandBufferPtr make_command_buffer(
      halo_command_buffer_mode_t mode = HALO_COMMAND_BUFFER_MODE_ONE_SHOT,
      halo_device_t* device = nullptr);
  // Creates an executable of |device| (device() when NULL) from test
  // kernel library |name|; returns the status and stores it in |*out|.
  Status create_executable(const std::string& name, ExecutablePtr* out,
                           halo_device_t* device = nullptr);
  // create_executable of "test_kernels", expecting OK.
  ExecutablePtr test_kernels(halo_device_t* device = nullptr);
  // Returns the ordinal of |name| in |executable|, expecting OK.
  uint32_t entry_point(halo_executable_t* executable, const std::string& name);
  // Records |spec| (whole-buffer bindings) into |command_buffer|.
  Status dispatch(halo_command_buffer_t* command_buffer,
                  const DispatchSpec& spec);
  // Submits |command_buffers| to |device| (device() when NULL) with the
  // given waits and signals; returns the status.
  Status execute(const std::vector<halo_command_buffer_t*>& command_buffers,
                 const std::vector<halo_semaphore_t*>& waits = {},
                 const std::vector<uint64_t>& wait_values = {},
                 const std::vector<halo_semaphore_t*>& signals = {},
                 const std::vector<uint64_t>& signal_values = {},
                 halo_device_t* device = nullptr);
  // Ends |command_buffer|, submits it to |device| (device() when NULL) and
  // waits until it has run, expecting OK throughout.
  void end_and_run(halo_command_buffer_t* command_buffer,
                   halo_device_t* device = nullptr);
};

}  // namespace halo_cpu_test

#endif  // HALO_TESTS_CPU_WORK_TEST_UTIL_HPP_
