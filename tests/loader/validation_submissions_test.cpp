// Validation at submission (README.md, "Validation"): a cycle of
// submissions that wait on each other's signals is refused as a deadlock,
// and signals that can never land in order are refused; in both cases
// nothing is submitted. Correct orderings, wait-before-signal in any order
// included, stay silent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "halo/deadline.h"
#include "validation_test_util.hpp"

namespace halo_test {
namespace {

using ValidationSubmissionsTest = ValidationTest;

std::string address(const void* object) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", object);
  return text;
}

TEST_F(ValidationSubmissionsTest, ACycleOfWaitsIsADeadlock) {
  halo_semaphore_t* a = semaphore();
  halo_semaphore_t* b = semaphore();
  ASSERT_EQ(execute({a}, {1}, {b}, {1}), HALO_OK);
  StderrCapture capture;
  halo_status_t status = execute({b}, {1}, {a}, {1});
  const std::string log = capture.stop();
  ASSERT_NE(status, HALO_OK);
  const std::string message = halo_status_message(status);
  expect_status(status, HALO_STATUS_FAILED_PRECONDITION, "halo_device_queue_execute: deadlock: ");
  EXPECT_NE(message.find("waits for semaphore " + address(b) +
                         " (created by halo_semaphore_create) to reach 1, which submission #"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("waits for semaphore " + address(a)), std::string::npos) << message;
  EXPECT_NE(message.find(" on 'host CPU'"), std::string::npos) << message;
  EXPECT_NE(message.find("Nothing was submitted"), std::string::npos) << message;
  EXPECT_NE(log.find("halo: error: validation: " + message), std::string::npos) << log;
  // Nothing was submitted: the host breaks what is left, and a stays at 1.
  ASSERT_EQ(halo_semaphore_signal(a, 1), HALO_OK);
  expect_reaches(b, 1);
  uint64_t value = 0;
  ASSERT_EQ(halo_semaphore_query(a, &value), HALO_OK);
  EXPECT_EQ(value, 1u);
}

TEST_F(ValidationSubmissionsTest, WaitingOnItsOwnSignalIsADeadlock) {
  halo_semaphore_t* s = semaphore();
  StderrCapture capture;
  expect_status(execute({s}, {1}, {s}, {1}), HALO_STATUS_FAILED_PRECONDITION,
                "to reach 1, which submission #");
  EXPECT_EQ(count_of(capture.stop(), "deadlock"), 1u);
}

TEST_F(ValidationSubmissionsTest, ALongerCycleAcrossDevicesNamesEverySubmission) {
  halo_device_t* second = nullptr;
  ASSERT_EQ(halo_registry_create_device(registry_, 0, nullptr, &second), HALO_OK);
  halo_semaphore_t* a = semaphore();
  halo_semaphore_t* b = semaphore();
  halo_semaphore_t* c = nullptr;
  ASSERT_EQ(halo_semaphore_create(second, 0, 0, &c), HALO_OK);
  semaphores_.push_back(c);
  ASSERT_EQ(execute({a}, {2}, {b}, {5}), HALO_OK);
  halo_semaphore_t* second_waits[] = {b};
  const uint64_t second_wait_values[] = {5};
  halo_semaphore_t* second_signals[] = {c};
  const uint64_t second_signal_values[] = {7};
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = 1;
  info.wait_semaphores = second_waits;
  info.wait_values = second_wait_values;
  info.signal_count = 1;
  info.signal_semaphores = second_signals;
  info.signal_values = second_signal_values;
  ASSERT_EQ(halo_device_queue_execute(second, &info), HALO_OK);
  StderrCapture capture;
  halo_status_t status = execute({c}, {7}, {a}, {2});
  capture.stop();
  ASSERT_NE(status, HALO_OK);
  const std::string message = halo_status_message(status);
  EXPECT_EQ(count_of(message, "waits for semaphore "), 3u) << message;
  EXPECT_NE(message.find("to reach 7"), std::string::npos) << message;
  EXPECT_NE(message.find("to reach 5"), std::string::npos) << message;
  EXPECT_NE(message.find("to reach 2"), std::string::npos) << message;
  halo_status_free(status);
  ASSERT_EQ(halo_semaphore_signal(a, 2), HALO_OK);
  expect_reaches(c, 7);
  halo_status_free(halo_device_wait_idle(second, halo_deadline_after_ns(60'000'000'000)));
  halo_device_release(second);
}

TEST_F(ValidationSubmissionsTest, WaitBeforeSignalInAnyOrderStaysSilent) {
  StderrCapture capture;
  // A chain on one semaphore submitted in shuffled order: each link waits
  // for a value that a later submission may bring.
  halo_semaphore_t* s = semaphore();
  std::vector<uint64_t> order(200);
  std::iota(order.begin(), order.end(), uint64_t{1});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  for (uint64_t i : order) ASSERT_EQ(execute({s}, {i}, {s}, {i + 1}), HALO_OK);
  // Ping-pong between two semaphores whose values differ: not a cycle, as a
  // signal to exactly 1 may still come.
  halo_semaphore_t* a = semaphore();
  halo_semaphore_t* b = semaphore();
  ASSERT_EQ(execute({a}, {1}, {b}, {1}), HALO_OK);
  ASSERT_EQ(execute({b}, {1}, {a}, {2}), HALO_OK);
  ASSERT_EQ(execute({}, {}, {a}, {1}), HALO_OK);
  ASSERT_EQ(halo_semaphore_signal(s, 1), HALO_OK);
  expect_reaches(s, 201);
  expect_reaches(a, 2);
  // Ordered signals of one semaphore by a chain.
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* t = semaphore();
  halo_semaphore_t* u = semaphore();
  ASSERT_EQ(execute({gate}, {1}, {t, u}, {1, 3}), HALO_OK);
  ASSERT_EQ(execute({t}, {1}, {u}, {4}), HALO_OK);
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  expect_reaches(u, 4);
  EXPECT_EQ(capture.stop(), "");
}

TEST_F(ValidationSubmissionsTest, ASemaphoreSignalledTwiceInOneListIsRefused) {
  halo_semaphore_t* s = semaphore();
  halo_semaphore_t* other = semaphore();
  StderrCapture capture;
  expect_status(execute({}, {}, {s, other, s}, {2, 1, 1}), HALO_STATUS_INVALID_ARGUMENT,
                "halo_device_queue_execute: info->signal_semaphores[0] and [2] are both "
                "semaphore " +
                    address(s) + " (created by halo_semaphore_create) (to 2 and 1)");
  EXPECT_EQ(count_of(capture.stop(), "halo: error: validation: "), 1u);
  ASSERT_EQ(halo_device_wait_idle(device_, halo_deadline_after_ns(60'000'000'000)), HALO_OK);
  uint64_t value = 0;
  ASSERT_EQ(halo_semaphore_query(other, &value), HALO_OK);
  EXPECT_EQ(value, 0u);  // Nothing was submitted.
}

TEST_F(ValidationSubmissionsTest, AnEqualPendingSignalIsRefused) {
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* s = semaphore();
  ASSERT_EQ(execute({gate}, {1}, {s}, {5}), HALO_OK);
  StderrCapture capture;
  expect_status(execute({}, {}, {s}, {5}), HALO_STATUS_INVALID_ARGUMENT,
                "info->signal_values[0] = 5 on semaphore " + address(s) +
                    " (created by halo_semaphore_create) can never land in order: pending "
                    "submission #");
  EXPECT_EQ(count_of(capture.stop(), "signals it to 5 too"), 1u);
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  expect_reaches(s, 5);
}

TEST_F(ValidationSubmissionsTest, ASignalBelowOneItWaitsForIsRefused) {
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* t = semaphore();
  halo_semaphore_t* s = semaphore();
  // The first signals s to 5 and t to 1; the second runs after it (it waits
  // for t = 1) and would move s back to 3.
  ASSERT_EQ(execute({gate}, {1}, {t, s}, {1, 5}), HALO_OK);
  StderrCapture capture;
  expect_status(execute({t}, {1}, {s}, {3}), HALO_STATUS_INVALID_ARGUMENT,
                ", and this submission runs after it");
  capture.stop();
  // And the mirror image: a pending submission that runs after this one
  // signals a lower value.
  halo_semaphore_t* v = semaphore();
  halo_semaphore_t* w = semaphore();
  ASSERT_EQ(execute({v}, {1}, {w}, {2}), HALO_OK);
  StderrCapture mirror;
  expect_status(execute({gate}, {1}, {v, w}, {1, 4}), HALO_STATUS_INVALID_ARGUMENT,
                "info->signal_values[1] = 4");
  mirror.stop();
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  expect_reaches(s, 5);
  ASSERT_EQ(halo_semaphore_signal(v, 1), HALO_OK);
  expect_reaches(w, 2);
}

TEST_F(ValidationSubmissionsTest, WithoutValidationNothingIsChecked) {
  // A second registry without validation: its objects are not tracked, even
  // with validation on elsewhere in the process.
  halo_registry_t* plain_registry = nullptr;
  const char* paths[] = {HALO_TEST_CPU_MANIFEST};
  halo_registry_options_t options{};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  ASSERT_EQ(halo_registry_create(&options, &plain_registry), HALO_OK);
  halo_device_t* plain = nullptr;
  ASSERT_EQ(halo_registry_create_device(plain_registry, 0, nullptr, &plain), HALO_OK);
  StderrCapture capture;
  halo_semaphore_t* a = nullptr;
  halo_semaphore_t* b = nullptr;
  ASSERT_EQ(halo_semaphore_create(plain, 0, 0, &a), HALO_OK);
  ASSERT_EQ(halo_semaphore_create(plain, 0, 0, &b), HALO_OK);
  auto submit = [&](halo_semaphore_t* wait, halo_semaphore_t* signal) {
    halo_queue_execute_info_t info{};
    info.struct_size = sizeof(info);
    info.affinity = HALO_QUEUE_AFFINITY_ANY;
    info.wait_count = 1;
    info.wait_semaphores = &wait;
    const uint64_t one = 1;
    info.wait_values = &one;
    info.signal_count = 1;
    info.signal_semaphores = &signal;
    info.signal_values = &one;
    return halo_device_queue_execute(plain, &info);
  };
  ASSERT_EQ(submit(a, b), HALO_OK);
  EXPECT_EQ(submit(b, a), HALO_OK);  // A cycle, accepted as before.
  halo_registry_release(plain_registry);  // Leaks, unreported.
  ASSERT_EQ(halo_semaphore_signal(a, 1), HALO_OK);
  expect_reaches(b, 1);
  halo_semaphore_release(a);
  halo_semaphore_release(b);
  halo_status_free(halo_device_wait_idle(plain, halo_deadline_after_ns(60'000'000'000)));
  halo_device_release(plain);
  EXPECT_EQ(capture.stop(), "");
}

}  // namespace
}  // namespace halo_test
