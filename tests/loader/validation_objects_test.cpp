// Validation of object lifetimes (README.md, "Validation"): a use after
// release or a double release is reported, never a crash; objects the
// application still holds when its registry goes are reported as leaks; a
// correct program, or one without validation, hears nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "halo/deadline.h"
#include "validation_test_util.hpp"

namespace halo_test {
namespace {

class ValidationObjectsTest : public ValidationTest {
 protected:
  halo_semaphore_t* out_observer_ = nullptr;
};

TEST_F(ValidationObjectsTest, UseAfterReleaseIsInvalidArgument) {
  halo_semaphore_t* out = semaphore();
  halo_semaphore_t* released = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &released), HALO_OK);
  halo_semaphore_release(released);
  StderrCapture capture;
  uint64_t value = 0;
  expect_status(halo_semaphore_query(released, &value), HALO_STATUS_INVALID_ARGUMENT,
                "halo_semaphore_query: semaphore (semaphore ");
  expect_status(halo_semaphore_signal(released, 1), HALO_STATUS_INVALID_ARGUMENT,
                "created by halo_semaphore_create) was released");
  expect_status(execute({released}, {1}, {out}, {1}), HALO_STATUS_INVALID_ARGUMENT,
                "halo_device_queue_execute: info->wait_semaphores[0] (semaphore ");
  halo_semaphore_t* list[] = {out, released};
  const uint64_t values[] = {0, 1};
  expect_status(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, list, values,
                                     HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_INVALID_ARGUMENT, "halo_semaphores_wait: semaphores[1] (semaphore ");
  const std::string log = capture.stop();
  EXPECT_EQ(count_of(log, "halo: error: validation: "), 4u) << log;
  EXPECT_NE(log.find("halo_semaphore_query: semaphore (semaphore "), std::string::npos) << log;
}

TEST_F(ValidationObjectsTest, UseOfAReleasedBufferAndCommandBufferIsReported) {
  halo_buffer_t* target = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  halo_buffer_t* released = nullptr;
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_TARGET;
  params.size = 64;
  ASSERT_EQ(halo_buffer_allocate(device_, &params, &released), HALO_OK);
  halo_buffer_release(released);
  halo_command_buffer_t* recorder = nullptr;
  ASSERT_EQ(halo_command_buffer_create(device_, HALO_COMMAND_BUFFER_MODE_ONE_SHOT, &recorder),
            HALO_OK);
  ASSERT_EQ(halo_command_buffer_begin(recorder), HALO_OK);
  StderrCapture capture;
  const uint32_t pattern = 7;
  expect_status(halo_command_buffer_fill(recorder, released, 0, 64, &pattern, 4),
                HALO_STATUS_INVALID_ARGUMENT,
                "halo_command_buffer_fill: target (buffer ");
  void* pointer = nullptr;
  expect_status(halo_buffer_map_range(released, 0, 64, &pointer), HALO_STATUS_INVALID_ARGUMENT,
                "created by halo_buffer_allocate) was released");
  ASSERT_EQ(halo_command_buffer_fill(recorder, target, 0, 64, &pattern, 4), HALO_OK);
  ASSERT_EQ(halo_command_buffer_end(recorder), HALO_OK);
  halo_command_buffer_release(recorder);
  expect_status(execute({}, {}, {}, {}, {recorder}), HALO_STATUS_INVALID_ARGUMENT,
                "info->command_buffers[0] (command buffer ");
  EXPECT_EQ(count_of(capture.stop(), "was released"), 3u);
}

TEST_F(ValidationObjectsTest, DoubleReleaseIsReportedAndIgnored) {
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* out = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &out), HALO_OK);
  halo_semaphore_retain(out);  // The test's second reference.
  // The submission holds |out| too: released twice by the application, it
  // lives on, and a third release would drop the submission's reference.
  out_observer_ = semaphore();
  ASSERT_EQ(execute({gate}, {1}, {out, out_observer_}, {1, 1}), HALO_OK);
  halo_semaphore_release(out);
  halo_semaphore_release(out);
  StderrCapture capture;
  halo_semaphore_release(out);
  const std::string log = capture.stop();
  EXPECT_NE(log.find("halo: error: validation: halo_semaphore_release: semaphore "),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("the application holds no reference to it"), std::string::npos) << log;
  EXPECT_NE(log.find("this release (a double release) is ignored"), std::string::npos) << log;
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  expect_reaches(out_observer_, 1);
}

TEST_F(ValidationObjectsTest, ReleaseOrRetainOfADestroyedObjectIsReported) {
  halo_semaphore_t* destroyed = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &destroyed), HALO_OK);
  halo_semaphore_release(destroyed);  // Nothing else holds it: destroyed.
  StderrCapture capture;
  halo_semaphore_release(destroyed);
  halo_semaphore_retain(destroyed);
  const std::string log = capture.stop();
  EXPECT_NE(log.find("halo_semaphore_release: semaphore "), std::string::npos) << log;
  EXPECT_NE(log.find("was released; this release (a double release) is ignored"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("halo_semaphore_retain: semaphore "), std::string::npos) << log;
  EXPECT_NE(log.find("was released; this retain is ignored"), std::string::npos) << log;
}

TEST_F(ValidationObjectsTest, CorrectLifetimesStaySilent) {
  StderrCapture capture;
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* out = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &out), HALO_OK);
  halo_semaphore_retain(out);
  halo_semaphore_release(out);
  ASSERT_EQ(execute({gate}, {1}, {out}, {1}), HALO_OK);
  // Released while the submission holds it: legal, and not a leak.
  halo_semaphore_release(out);
  halo_buffer_t* target = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  halo_buffer_retain(target);
  halo_buffer_release(target);
  halo_driver_t* driver = nullptr;
  ASSERT_EQ(halo_registry_driver(registry_, 0, &driver), HALO_OK);
  halo_driver_release(driver);
  ASSERT_EQ(halo_semaphore_signal(gate, 1), HALO_OK);
  // Many objects in turn reuse addresses of released ones.
  for (int i = 0; i < 100; ++i) {
    halo_semaphore_t* temporary = nullptr;
    ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &temporary), HALO_OK);
    ASSERT_EQ(halo_semaphore_signal(temporary, 1), HALO_OK);
    halo_semaphore_release(temporary);
  }
  TearDown();
  device_ = nullptr;
  registry_ = nullptr;
  semaphores_.clear();
  buffers_.clear();
  EXPECT_EQ(capture.stop(), "");
}

TEST_F(ValidationObjectsTest, LeaksAreReportedWhenTheRegistryIsReleased) {
  halo_semaphore_t* kept = semaphore(3);
  halo_buffer_t* kept_buffer = buffer(64, HALO_BUFFER_USAGE_TRANSFER_TARGET);
  StderrCapture capture;
  halo_registry_release(registry_);
  registry_ = nullptr;
  const std::string log = capture.stop();
  EXPECT_NE(log.find("halo: error: validation: halo_registry_release: 3 object(s) of the "
                     "registry are still alive (leaked):"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("  device 0x"), std::string::npos) << log;
  EXPECT_NE(log.find(" created by halo_registry_create_device\n"), std::string::npos) << log;
  char line[128];
  std::snprintf(line, sizeof(line), "  semaphore %p created by halo_semaphore_create",
                static_cast<void*>(kept));
  EXPECT_NE(log.find(line), std::string::npos) << log;
  std::snprintf(line, sizeof(line), "  buffer %p created by halo_buffer_allocate",
                static_cast<void*>(kept_buffer));
  EXPECT_NE(log.find(line), std::string::npos) << log;
  // The driver lives on (the device holds it), but the application holds
  // no reference to it: the registry's own was released.
  EXPECT_EQ(count_of(log, "  driver 0x"), 0u) << log;
}

TEST_F(ValidationObjectsTest, ObjectsKeptOnlyByWorkInFlightAreNotLeaks) {
  halo_semaphore_t* gate = semaphore();
  halo_semaphore_t* out = nullptr;
  ASSERT_EQ(halo_semaphore_create(device_, 0, 0, &out), HALO_OK);
  ASSERT_EQ(execute({gate}, {1}, {out}, {1}), HALO_OK);
  halo_semaphore_release(out);
  StderrCapture capture;
  // The submission still holds |out|; the application holds none of it.
  halo_semaphore_t* gate_kept = gate;
  semaphores_.clear();
  halo_device_release(device_);
  device_ = nullptr;
  halo_registry_release(registry_);
  registry_ = nullptr;
  const std::string log = capture.stop();
  // Only the gate, which the test still holds.
  EXPECT_NE(log.find("1 object(s) of the registry are still alive"), std::string::npos) << log;
  char line[128];
  std::snprintf(line, sizeof(line), "  semaphore %p created", static_cast<void*>(gate));
  EXPECT_NE(log.find(line), std::string::npos) << log;
  ASSERT_EQ(halo_semaphore_signal(gate_kept, 1), HALO_OK);
  halo_semaphore_release(gate_kept);
}

// Death tests fork: "threadsafe" re-runs the test in a fresh process, so the
// cpu plugin's threads are no concern.
TEST(ValidationFatalTest, AReportAbortsWithIt) {
#ifndef HALO_TEST_HAVE_CPU_PLUGIN
  GTEST_SKIP() << "this build has no cpu plugin";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        const char* paths[] = {HALO_TEST_CPU_MANIFEST};
        halo_registry_options_t options{};
        options.struct_size = sizeof(options);
        options.flags =
            HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS | HALO_REGISTRY_FLAG_VALIDATION_FATAL;
        options.plugin_path_count = 1;
        options.plugin_paths = paths;
        halo_registry_t* registry = nullptr;
        halo_status_free(halo_registry_create(&options, &registry));
        halo_device_t* device = nullptr;
        halo_status_free(halo_registry_create_device(registry, 0, nullptr, &device));
        halo_semaphore_t* semaphore = nullptr;
        halo_status_free(halo_semaphore_create(device, 0, 0, &semaphore));
        halo_semaphore_release(semaphore);
        uint64_t value = 0;
        halo_status_free(halo_semaphore_query(semaphore, &value));
      },
      "halo: error: validation: halo_semaphore_query: semaphore \\(semaphore 0x[0-9a-f]+ "
      "created by halo_semaphore_create\\) was released\n"
      "halo: validation is fatal");
#endif
}

// HALO_VALIDATION turns validation on for a registry without the flag, and
// an unknown value is a warning that leaves it off.
TEST_F(LoaderTest, ValidationFollowsTheEnvironment) {
#ifndef HALO_TEST_HAVE_CPU_PLUGIN
  GTEST_SKIP() << "this build has no cpu plugin";
#else
  EnvironmentGuard::set("HALO_LOADER_DEBUG", "warn");
  {
    EnvironmentGuard::set("HALO_VALIDATION", "1");
    StderrCapture capture;
    halo::Registry registry = scan({HALO_TEST_CPU_MANIFEST});
    halo_device_t* device = nullptr;
    ASSERT_EQ(halo_registry_create_device(registry.get(), 0, nullptr, &device), HALO_OK);
    halo_device_release(device);
    halo_device_release(device);  // Reported and ignored.
    const std::string log = capture.stop();
    EXPECT_NE(log.find("halo: error: validation: halo_device_release: device "),
              std::string::npos)
        << log;
  }
  {
    EnvironmentGuard::set("HALO_VALIDATION", "yes");
    StderrCapture capture;
    halo::Registry registry = scan({HALO_TEST_CPU_MANIFEST});
    halo_device_t* device = nullptr;
    ASSERT_EQ(halo_registry_create_device(registry.get(), 0, nullptr, &device), HALO_OK);
    registry = halo::Registry();  // Holding the device is no leak without validation.
    halo_device_release(device);
    const std::string log = capture.stop();
    EXPECT_NE(log.find("halo: warn: HALO_VALIDATION='yes' is not 1, fatal or 0"),
              std::string::npos)
        << log;
    EXPECT_EQ(log.find("validation: "), std::string::npos) << log;
  }
#endif
}

}  // namespace
}  // namespace halo_test
