// Helpers of the fence.* cases (fence_cases.cpp, fence_wait_handle_cases.cpp):
// owning references to fences and wait handles, fences made from lists of
// timepoints, and the checks of reached, ready and readable.
#ifndef HALO_CTS_CASES_FENCE_HELPERS_HPP_
#define HALO_CTS_CASES_FENCE_HELPERS_HPP_

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "case_helpers.hpp"
#include "halo/fence.h"

namespace halo::cts::fence {


using FenceRef = Ref<halo_fence_t, &halo_fence_release>;
using WaitHandleRef = Ref<halo_wait_handle_t, &halo_wait_handle_destroy>;

constexpr char kFailureMessage[] = "cts: fence failure 5e1c";
constexpr char kEarlierMessage[] = "cts: earlier member failed 0a7d";
constexpr int kGenerousPollMs = static_cast<int>(kGenerousMs);

template <typename To, typename From>
inline To* as(From* handle) {
  return reinterpret_cast<To*>(handle);
}

struct Timepoint {
  halo_semaphore_t* semaphore;
  uint64_t value;
};

// A new fence holding |timepoints|, inserted in order.
inline FenceRef make_fence(std::initializer_list<Timepoint> timepoints = {}) {
  FenceRef fence;
  CTS_ASSERT_OK(halo_fence_create(fence.out()));
  CTS_ASSERT(fence.get() != nullptr);
  for (const Timepoint& timepoint : timepoints) {
    CTS_ASSERT_OK(halo_fence_insert(fence.get(), timepoint.semaphore, timepoint.value));
  }
  return fence;
}

// A semaphore at 0 on the device under test that the case owns (to release
// it while a fence or wait handle still holds it).
inline SemaphoreRef new_semaphore(Context& context) {
  SemaphoreRef semaphore;
  CTS_ASSERT_OK(halo_semaphore_create(context.device(), 0, HALO_SEMAPHORE_FLAG_NONE,
                                      semaphore.out()));
  return semaphore;
}

inline size_t count_of(halo_fence_t* fence) {
  size_t count = 12345;
  CTS_ASSERT_OK(halo_fence_timepoints(fence, 0, nullptr, nullptr, &count));
  return count;
}

// Fails the case unless the fence's timepoints, sized then copied, are
// exactly |expected| in that order.
inline void check_timepoints(halo_fence_t* fence, const std::vector<Timepoint>& expected,
                      const char* file, int line) {
  const size_t count = count_of(fence);
  std::vector<halo_semaphore_t*> semaphores(count);
  std::vector<uint64_t> values(count);
  size_t copied = 0;
  CTS_ASSERT_OK(halo_fence_timepoints(fence, count, semaphores.data(), values.data(), &copied));
  CTS_ASSERT_EQ(copied, count);
  std::vector<halo_semaphore_t*> expected_semaphores;
  std::vector<uint64_t> expected_values;
  for (const Timepoint& timepoint : expected) {
    expected_semaphores.push_back(timepoint.semaphore);
    expected_values.push_back(timepoint.value);
  }
  check_values(semaphores, expected_semaphores, "the fence's semaphores", file, line);
  check_values(values, expected_values, "the fence's values", file, line);
}

#define CTS_ASSERT_TIMEPOINTS(fence, ...) \
  check_timepoints((fence), {__VA_ARGS__}, __FILE__, __LINE__)

// Fails the case unless halo_fence_query is OK with |expected|; out_reached
// starts opposite, so an unwritten one is caught.
inline void check_reached(halo_fence_t* fence, bool expected, const char* file, int line) {
  bool reached = !expected;
  halo_status_t status = halo_fence_query(fence, &reached);
  if (status != nullptr || reached != expected) {
    const std::string text = status != nullptr ? take_status_text(status) : "OK";
    fail(file, line, "halo_fence_query returned " + text + " with reached " +
                         to_text(reached) + ", expected OK with " + to_text(expected));
  }
}

#define CTS_ASSERT_REACHED(fence, expected) \
  check_reached((fence), (expected), __FILE__, __LINE__)

// Asserts halo_fence_query returns the failure |code| and |message| with
// out_reached false.
#define CTS_ASSERT_QUERY_FAILS(fence, code, message)                   \
  do {                                                                 \
    bool cts_reached_ = true;                                          \
    CTS_ASSERT_FAILURE(halo_fence_query((fence), &cts_reached_), (code), \
                       (message));                                     \
    CTS_ASSERT(!cts_reached_);                                         \
  } while (0)

inline WaitHandleRef make_wait_handle(halo_fence_t* fence) {
  WaitHandleRef handle;
  CTS_ASSERT_OK(halo_fence_create_wait_handle(fence, handle.out()));
  CTS_ASSERT(handle.get() != nullptr);
  return handle;
}

// Polls |fd| for POLLIN for up to |timeout_ms| (0: only look).
inline bool fd_readable(int fd, int timeout_ms) {
  CTS_ASSERT_MSG(fd >= 0, "fd " + std::to_string(fd));
  pollfd entry = {fd, POLLIN, 0};
  int result = 0;
  do {
    result = poll(&entry, 1, timeout_ms);
  } while (result < 0 && errno == EINTR);
  CTS_ASSERT_MSG(result >= 0, std::strerror(errno));
  CTS_ASSERT_MSG((entry.revents & (POLLERR | POLLNVAL)) == 0,
                 "revents " + std::to_string(entry.revents));
  return (entry.revents & POLLIN) != 0;
}

inline bool readable(halo_wait_handle_t* handle, int timeout_ms) {
  return fd_readable(halo_wait_handle_fd(handle), timeout_ms);
}

// Fails the case unless halo_wait_handle_status is OK with |expected|.
inline void check_ready(halo_wait_handle_t* handle, bool expected, const char* file, int line) {
  bool ready = !expected;
  halo_status_t status = halo_wait_handle_status(handle, &ready);
  if (status != nullptr || ready != expected) {
    const std::string text = status != nullptr ? take_status_text(status) : "OK";
    fail(file, line, "halo_wait_handle_status returned " + text + " with ready " +
                         to_text(ready) + ", expected OK with " + to_text(expected));
  }
}

#define CTS_ASSERT_READY(handle, expected) \
  check_ready((handle), (expected), __FILE__, __LINE__)

// Asserts halo_wait_handle_status returns the failure |code| and |message|
// with out_ready true.
#define CTS_ASSERT_READY_FAILED(handle, code, message)                           \
  do {                                                                           \
    bool cts_ready_ = false;                                                     \
    CTS_ASSERT_FAILURE(halo_wait_handle_status((handle), &cts_ready_), (code),   \
                       (message));                                               \
    CTS_ASSERT(cts_ready_);                                                      \
  } while (0)

inline halo_status_t execute_fences(halo_device_t* device, halo_fence_t* waits,
                             halo_fence_t* signals) {
  return halo_device_queue_execute_fences(device, HALO_QUEUE_AFFINITY_ANY, waits,
                                          signals, 0, nullptr);
}

// Raw eventfds the case opens itself, closed when it ends.
class OwnFds {
 public:
  OwnFds() = default;
  OwnFds(const OwnFds&) = delete;
  OwnFds& operator=(const OwnFds&) = delete;
  ~OwnFds() {
    for (int fd : fds_) close(fd);
  }
  int open_eventfd() {
    const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    CTS_ASSERT_MSG(fd >= 0, std::strerror(errno));
    fds_.push_back(fd);
    return fd;
  }
  const std::vector<int>& fds() const { return fds_; }

 private:
  std::vector<int> fds_;
};
}  // namespace halo::cts::fence

#endif  // HALO_CTS_CASES_FENCE_HELPERS_HPP_
