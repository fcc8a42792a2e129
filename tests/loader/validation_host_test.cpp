// Validation of the host's side (README.md, "Validation"): an infinite host
// wait that nothing queued will satisfy is reported after a grace period and
// goes on waiting; host access to a buffer range that a pending submission
// writes (or, for a host write, reads) is refused. Tests wait for reports
// through the captured log, never for time to pass.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "halo/deadline.h"
#include "validation_test_util.hpp"

namespace halo_test {
namespace {

std::string address(const void* object) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", object);
  return text;
}

class ValidationHostWaitTest : public ValidationTest {
 protected:
  void SetUp() override {
    // Read at registry creation; 0 checks at once.
    EnvironmentGuard::set("HALO_VALIDATION_GRACE_MS", "0");
    ValidationTest::SetUp();
  }
};

TEST_F(ValidationHostWaitTest, AWaitNothingWillSatisfyIsReportedAndGoesOn) {
  halo_semaphore_t* s = semaphore(2);
  halo_semaphore_t* gate = semaphore();
  ASSERT_EQ(execute({gate}, {1}, {s}, {4}), HALO_OK);
  StderrCapture capture;
  halo_status_t result = nullptr;
  std::thread waiter(
      [&] { result = halo_semaphore_wait(s, 5, HALO_DEADLINE_INFINITE_FUTURE); });
  const std::string expected = "halo: error: validation: halo_semaphore_wait: an infinite wait "
                               "is still blocked after 0 ms: semaphore " +
                               address(s) +
                               " (created by halo_semaphore_create) waits for 5 but is at 2, "
                               "and no queued submission signals it that far (pending signals "
                               "on it: 4 by submission #";
  const bool reported = capture.wait_for(expected);
  // The wait goes on until the host signals.
  ASSERT_EQ(halo_semaphore_signal(s, 5), HALO_OK);
  waiter.join();
  const std::string log = capture.stop();
  EXPECT_TRUE(reported) << log;
  EXPECT_EQ(result, HALO_OK);
  halo_status_free(result);
  // The gated submission now signals 4 below the payload 5: it fails s.
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
}

TEST_F(ValidationHostWaitTest, AMultiWaitNothingWillSatisfyIsReported) {
  halo_semaphore_t* a = semaphore();
  halo_semaphore_t* b = semaphore();
  halo_semaphore_t* list[] = {a, b};
  const uint64_t values[] = {1, 1};
  StderrCapture capture;
  halo_status_t result = nullptr;
  std::thread waiter([&] {
    result = halo_semaphores_wait(HALO_WAIT_MODE_ANY, 2, list, values,
                                  HALO_DEADLINE_INFINITE_FUTURE);
  });
  const bool reported = capture.wait_for(
      "halo_semaphores_wait: an infinite wait (ANY) is still blocked after 0 ms: "
      "semaphores[0]: semaphore " +
      address(a));
  ASSERT_EQ(halo_semaphore_signal(b, 1), HALO_OK);
  waiter.join();
  const std::string log = capture.stop();
  EXPECT_TRUE(reported) << log;
  EXPECT_NE(log.find("semaphores[1]: semaphore " + address(b)), std::string::npos) << log;
  EXPECT_NE(log.find("(pending signals on it: none)"), std::string::npos) << log;
  EXPECT_EQ(result, HALO_OK);
}

TEST_F(ValidationHostWaitTest, AWaitThatQueuedWorkWillSatisfyStaysSilent) {
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* s = semaphore();
  halo_semaphore_t* t = semaphore();
  ASSERT_EQ(execute({gate}, {1}, {s, t}, {6, 1}), HALO_OK);
  StderrCapture capture;
  halo_status_t result = nullptr;
  halo_status_t all_result = nullptr;
  // With no grace each wait is checked as soon as it starts, before or after
  // the gate opens; either way queued work will satisfy it: no report.
  std::thread waiter(
      [&] { result = halo_semaphore_wait(s, 5, HALO_DEADLINE_INFINITE_FUTURE); });
  halo_semaphore_t* list[] = {s, t};
  const uint64_t values[] = {6, 1};
  std::thread all_waiter([&] {
    all_result = halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                      HALO_DEADLINE_INFINITE_FUTURE);
  });
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  waiter.join();
  all_waiter.join();
  EXPECT_EQ(result, HALO_OK);
  EXPECT_EQ(all_result, HALO_OK);
  EXPECT_EQ(capture.stop(), "");
}

class ValidationHostAccessTest : public ValidationTest {
 protected:
  // Submits work that stays running until release(): a dispatch spinning on
  // a flag, then |record|'s commands; it signals done = 1.
  template <typename Record>
  void submit_running(Record record) {
    flag_buffer_ = buffer(64, HALO_BUFFER_USAGE_DISPATCH_STORAGE);
    ASSERT_EQ(halo_buffer_map_range(flag_buffer_, 0, 64, &flag_), HALO_OK);
    *static_cast<uint32_t*>(flag_) = 0;
    halo_executable_t* kernel = wait_for_flag_kernel();
    done_ = semaphore();
    halo_command_buffer_t* work = command_buffer([&](halo_command_buffer_t* recorder) {
      halo_buffer_binding_t binding{flag_buffer_, 0, 64};
      halo_dispatch_params_t params{};
      params.struct_size = sizeof(params);
      params.executable = kernel;
      params.workgroup_count[0] = params.workgroup_count[1] = params.workgroup_count[2] = 1;
      params.binding_count = 1;
      params.bindings = &binding;
      ASSERT_EQ(halo_command_buffer_dispatch(recorder, &params), HALO_OK);
      ASSERT_EQ(halo_command_buffer_barrier(recorder), HALO_OK);
      record(recorder);
    });
    ASSERT_EQ(execute({}, {}, {done_}, {1}, {work}), HALO_OK);
  }

  void release() {
    __atomic_store_n(static_cast<uint32_t*>(flag_), 1u, __ATOMIC_RELEASE);
    expect_reaches(done_, 1);
    ASSERT_EQ(halo_buffer_unmap_range(flag_buffer_, 0, 64), HALO_OK);
  }

  halo_buffer_t* flag_buffer_ = nullptr;
  void* flag_ = nullptr;
  halo_semaphore_t* done_ = nullptr;
};

TEST_F(ValidationHostAccessTest, ARangePendingWorkWritesIsRefused) {
  halo_buffer_t* target = buffer(256, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  submit_running([&](halo_command_buffer_t* recorder) {
    const uint32_t pattern = 9;
    ASSERT_EQ(halo_command_buffer_fill(recorder, target, 64, 64, &pattern, 4), HALO_OK);
  });
  StderrCapture capture;
  void* pointer = nullptr;
  const std::string range_text = "range [0, 256) of buffer " + address(target) +
                                 " (created by halo_buffer_allocate) is written by pending "
                                 "submission #";
  expect_status(halo_buffer_map_range(target, 0, HALO_WHOLE_BUFFER, &pointer),
                HALO_STATUS_FAILED_PRECONDITION, "halo_buffer_map_range: " + range_text);
  EXPECT_EQ(pointer, nullptr);
  expect_status(halo_buffer_invalidate_range(target, 100, 4), HALO_STATUS_FAILED_PRECONDITION,
                "which signals semaphore " + address(done_) +
                    " (created by halo_semaphore_create) to 1 (now 0)");
  expect_status(halo_buffer_flush_range(target, 64, 1), HALO_STATUS_FAILED_PRECONDITION,
                "before the host writes the range. Nothing was done");
  // Ranges the work does not touch are the host's.
  ASSERT_EQ(halo_buffer_map_range(target, 0, 64, &pointer), HALO_OK);
  ASSERT_EQ(halo_buffer_flush_range(target, 128, 128), HALO_OK);
  ASSERT_EQ(halo_buffer_unmap_range(target, 0, 64), HALO_OK);
  const std::string log = capture.stop();
  EXPECT_EQ(count_of(log, "halo: error: validation: "), 3u) << log;
  release();
  // Complete: the range is the host's again.
  ASSERT_EQ(halo_buffer_map_range(target, 0, HALO_WHOLE_BUFFER, &pointer), HALO_OK);
  EXPECT_EQ(static_cast<uint32_t*>(pointer)[16], 9u);
  ASSERT_EQ(halo_buffer_unmap_range(target, 0, HALO_WHOLE_BUFFER), HALO_OK);
}

TEST_F(ValidationHostAccessTest, ARangePendingWorkReadsMayBeReadNotWritten) {
  halo_buffer_t* source = buffer(64, HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  halo_buffer_t* target = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  submit_running([&](halo_command_buffer_t* recorder) {
    ASSERT_EQ(halo_command_buffer_copy(recorder, source, 0, target, 0, 64), HALO_OK);
  });
  StderrCapture capture;
  void* pointer = nullptr;
  ASSERT_EQ(halo_buffer_map_range(source, 0, 64, &pointer), HALO_OK);
  ASSERT_EQ(halo_buffer_invalidate_range(source, 0, 64), HALO_OK);
  expect_status(halo_buffer_flush_range(source, 0, 64), HALO_STATUS_FAILED_PRECONDITION,
                "range [0, 64) of buffer " + address(source) +
                    " (created by halo_buffer_allocate) is read by pending submission #");
  ASSERT_EQ(halo_buffer_unmap_range(source, 0, 64), HALO_OK);
  EXPECT_EQ(count_of(capture.stop(), "halo: error: validation: "), 1u);
  release();
}

TEST_F(ValidationHostAccessTest, HostAccessBeforeTheWorkMayStartStaysSilent) {
  // Work that waits for the host cannot have started: the host fills its
  // input, then signals (buffer.h, "Host access").
  halo_buffer_t* target = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET |
                                         HALO_BUFFER_USAGE_TRANSFER_SOURCE);
  halo_buffer_t* output = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* done = semaphore();
  halo_command_buffer_t* work = command_buffer([&](halo_command_buffer_t* recorder) {
    ASSERT_EQ(halo_command_buffer_copy(recorder, target, 0, output, 0, 64), HALO_OK);
  });
  StderrCapture capture;
  ASSERT_EQ(execute({gate}, {1}, {done}, {1}, {work}), HALO_OK);
  void* pointer = nullptr;
  ASSERT_EQ(halo_buffer_map_range(target, 0, 64, &pointer), HALO_OK);
  static_cast<uint32_t*>(pointer)[0] = 42;
  ASSERT_EQ(halo_buffer_flush_range(target, 0, 64), HALO_OK);
  ASSERT_EQ(halo_buffer_unmap_range(target, 0, 64), HALO_OK);
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  expect_reaches(done, 1);
  ASSERT_EQ(halo_buffer_map_range(output, 0, 64, &pointer), HALO_OK);
  EXPECT_EQ(static_cast<uint32_t*>(pointer)[0], 42u);
  ASSERT_EQ(halo_buffer_unmap_range(output, 0, 64), HALO_OK);
  EXPECT_EQ(capture.stop(), "");
}

}  // namespace
}  // namespace halo_test
