// The SDK's C interface (halo/sdk/c/*.h) against the fake host: the
// semaphore and the queue core a C plugin builds on.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "halo/sdk/c/plugin_query.h"
#include "halo/sdk/c/queue.h"
#include "halo/sdk/c/semaphore.h"
#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::fake_host_interface;
using testing::StatusHolder;

// A device object of the test's own: only its reference count matters, and
// its destroy may destroy the queue (as a real device's does).
struct FakeDevice {
  halo_object_t header;
  halo_sdk_queue_t* queue = nullptr;
  std::promise<void>* destroyed = nullptr;

  static void destroy(halo_object_t* object) {
    auto* self = reinterpret_cast<FakeDevice*>(object);
    halo_sdk_queue_destroy(self->queue);
    if (self->destroyed != nullptr) self->destroyed->set_value();
    delete self;
  }
  halo_device_t* handle() { return reinterpret_cast<halo_device_t*>(this); }
};

const halo_object_vtable_t kDeviceVtable = {sizeof(halo_object_vtable_t),
                                            HALO_OBJECT_TYPE_DEVICE,
                                            &FakeDevice::destroy};

FakeDevice* make_device() {
  return new FakeDevice{HALO_OBJECT_HEADER_INIT(&kDeviceVtable)};
}

void release(void* handle) {
  fake_host().release(static_cast<halo_object_t*>(handle));
}

const halo_semaphore_vtable_t* vtable(halo_semaphore_t* semaphore) {
  return reinterpret_cast<const halo_semaphore_vtable_t*>(
      reinterpret_cast<halo_object_t*>(semaphore)->vtable);
}

// Drops the test's reference to |device| and waits until the device (and
// so its queue, and every submission) is gone, on whichever thread that
// happens.
void release_device(FakeDevice* device) {
  std::promise<void> destroyed;
  device->destroyed = &destroyed;
  release(device);
  destroyed.get_future().wait();
}

halo_semaphore_t* make_semaphore(FakeDevice* device, uint64_t value) {
  halo_semaphore_t* semaphore = nullptr;
  EXPECT_EQ(halo_sdk_semaphore_create(fake_host_interface(), device->handle(),
                                      value, &semaphore),
            nullptr);
  return semaphore;
}

// Counts submits and completes each at once (with make_failure's status
// when set), or hands it to |held| for the test to complete.
struct Hooks {
  std::atomic<int> submits{0};
  halo_status_t (*make_failure)() = nullptr;
  std::promise<halo_sdk_submission_t*>* held = nullptr;

  static void submit(void* context, halo_sdk_submission_t* submission,
                     halo_command_buffer_t* const*, size_t) {
    auto* self = static_cast<Hooks*>(context);
    self->submits.fetch_add(1);
    if (self->held != nullptr) {
      self->held->set_value(submission);
      return;
    }
    halo_sdk_submission_complete(
        submission, self->make_failure ? self->make_failure() : nullptr);
  }
  halo_sdk_queue_hooks_t table() {
    return {this, nullptr, nullptr, &Hooks::submit};
  }
};

// A device with a queue whose hooks are |hooks|.
FakeDevice* make_device_with_queue(Hooks* hooks) {
  FakeDevice* device = make_device();
  halo_sdk_queue_hooks_t table = hooks->table();
  EXPECT_EQ(halo_sdk_queue_create(fake_host_interface(), &table,
                                  &device->queue),
            nullptr);
  return device;
}

halo_queue_execute_info_t execute_info(halo_semaphore_t** waits,
                                       uint64_t* wait_values, size_t waits_n,
                                       halo_semaphore_t** signals,
                                       uint64_t* signal_values,
                                       size_t signals_n) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = 1;
  info.wait_count = waits_n;
  info.wait_semaphores = waits;
  info.wait_values = wait_values;
  info.signal_count = signals_n;
  info.signal_semaphores = signals;
  info.signal_values = signal_values;
  return info;
}

using CInterfaceTest = testing::LeakCheckedTest;

TEST_F(CInterfaceTest, SemaphoreIsACompleteTimeline) {
  FakeDevice* device = make_device();
  halo_semaphore_t* semaphore = make_semaphore(device, 3);
  ASSERT_NE(semaphore, nullptr);
  EXPECT_TRUE(halo_sdk_semaphore_is(semaphore));
  EXPECT_FALSE(halo_sdk_semaphore_is(nullptr));
  EXPECT_FALSE(halo_sdk_semaphore_is(
      reinterpret_cast<halo_semaphore_t*>(device)));
  EXPECT_EQ(vtable(semaphore)->device(semaphore), device->handle());
  uint64_t values[1] = {5};
  StatusHolder early(halo_sdk_semaphores_wait(
      fake_host_interface(), HALO_WAIT_MODE_ALL, 1, &semaphore, values,
      HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(early.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  std::thread signaller(
      [&] { EXPECT_EQ(vtable(semaphore)->signal(semaphore, 5), nullptr); });
  EXPECT_EQ(halo_sdk_semaphores_wait(fake_host_interface(), HALO_WAIT_MODE_ALL,
                                     1, &semaphore, values,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  signaller.join();
  // A lower signal is refused: the payload never goes down.
  StatusHolder lower(vtable(semaphore)->signal(semaphore, 4));
  EXPECT_EQ(lower.code(), HALO_STATUS_INVALID_ARGUMENT);
  release(semaphore);
  release(device);
}

TEST_F(CInterfaceTest, QueueSubmitsOnceTheWaitsAreReachedThenSignals) {
  Hooks hooks;
  FakeDevice* device = make_device_with_queue(&hooks);
  halo_semaphore_t* wait = make_semaphore(device, 0);
  halo_semaphore_t* signal = make_semaphore(device, 0);
  uint64_t one = 1;
  halo_queue_execute_info_t info =
      execute_info(&wait, &one, 1, &signal, &one, 1);
  ASSERT_EQ(halo_sdk_queue_execute(device->queue, device->handle(), &info),
            nullptr);
  StatusHolder busy(
      halo_sdk_queue_wait_idle(device->queue, HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(busy.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  ASSERT_EQ(vtable(wait)->signal(wait, 1), nullptr);
  EXPECT_EQ(halo_sdk_semaphores_wait(fake_host_interface(), HALO_WAIT_MODE_ALL,
                                     1, &signal, &one,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  EXPECT_EQ(halo_sdk_queue_wait_idle(device->queue,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  EXPECT_EQ(hooks.submits.load(), 1);
  release(wait);
  release(signal);
  release_device(device);
}

// A signal is committed (libhalo may then let another plugin's device wait
// on it there) once its submission is ready: not while a wait holds it,
// and before the work is done.
TEST_F(CInterfaceTest, ASignalIsCommittedOnceItsSubmissionIsReady) {
  Hooks hooks;
  std::promise<halo_sdk_submission_t*> held;
  hooks.held = &held;
  FakeDevice* device = make_device_with_queue(&hooks);
  halo_semaphore_t* gate = make_semaphore(device, 0);
  halo_semaphore_t* signal = make_semaphore(device, 0);
  uint64_t one = 1;
  uint64_t two = 2;
  halo_queue_execute_info_t info =
      execute_info(&gate, &one, 1, &signal, &two, 1);
  ASSERT_EQ(halo_sdk_queue_execute(device->queue, device->handle(), &info),
            nullptr);
  EXPECT_FALSE(vtable(signal)->signal_committed(signal, 2));
  EXPECT_TRUE(vtable(signal)->signal_committed(signal, 0));  // Reached.
  ASSERT_EQ(vtable(gate)->signal(gate, 1), nullptr);
  halo_sdk_submission_t* submission = held.get_future().get();
  EXPECT_TRUE(vtable(signal)->signal_committed(signal, 2));
  EXPECT_FALSE(vtable(signal)->signal_committed(signal, 3));
  halo_sdk_submission_complete(submission, nullptr);
  EXPECT_EQ(halo_sdk_queue_wait_idle(device->queue,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  // A failed semaphore commits nothing.
  vtable(signal)->fail(signal, fake_host().make_status_text(
                                   HALO_STATUS_ABORTED, "failed"));
  EXPECT_FALSE(vtable(signal)->signal_committed(signal, 1));
  release(gate);
  release(signal);
  release_device(device);
}

TEST_F(CInterfaceTest, FailedWorkFailsTheSignalsWithItsStatus) {
  Hooks hooks;
  hooks.make_failure = [] {
    return fake_host().make_status_text(HALO_STATUS_DATA_LOSS, "device lost");
  };
  FakeDevice* device = make_device_with_queue(&hooks);
  halo_semaphore_t* signals[2] = {make_semaphore(device, 0),
                                  make_semaphore(device, 0)};
  uint64_t values[2] = {1, 2};
  halo_queue_execute_info_t info =
      execute_info(nullptr, nullptr, 0, signals, values, 2);
  ASSERT_EQ(halo_sdk_queue_execute(device->queue, device->handle(), &info),
            nullptr);
  EXPECT_EQ(halo_sdk_queue_wait_idle(device->queue,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  for (halo_semaphore_t* signal : signals) {
    uint64_t value = 0;
    StatusHolder status(vtable(signal)->query(signal, &value));
    EXPECT_EQ(status.code(), HALO_STATUS_DATA_LOSS);
    EXPECT_EQ(status.message(), "device lost");
    release(signal);
  }
  release_device(device);
}

TEST_F(CInterfaceTest, AFailedWaitNeverReachesTheDevice) {
  Hooks hooks;
  FakeDevice* device = make_device_with_queue(&hooks);
  halo_semaphore_t* wait = make_semaphore(device, 0);
  halo_semaphore_t* signal = make_semaphore(device, 0);
  uint64_t one = 1;
  halo_queue_execute_info_t info =
      execute_info(&wait, &one, 1, &signal, &one, 1);
  ASSERT_EQ(halo_sdk_queue_execute(device->queue, device->handle(), &info),
            nullptr);
  vtable(wait)->fail(wait, fake_host().make_status_text(HALO_STATUS_ABORTED,
                                                        "upstream"));
  EXPECT_EQ(halo_sdk_queue_wait_idle(device->queue,
                                     HALO_DEADLINE_INFINITE_FUTURE),
            nullptr);
  EXPECT_EQ(hooks.submits.load(), 0);
  uint64_t value = 0;
  StatusHolder status(vtable(signal)->query(signal, &value));
  EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
  release(wait);
  release(signal);
  release_device(device);
}

TEST_F(CInterfaceTest, CommandBuffersNeedAClaimHook) {
  Hooks hooks;
  FakeDevice* device = make_device_with_queue(&hooks);
  halo_command_buffer_t* foreign =
      reinterpret_cast<halo_command_buffer_t*>(device);
  halo_queue_execute_info_t info = execute_info(nullptr, nullptr, 0, nullptr,
                                                nullptr, 0);
  info.command_buffer_count = 1;
  info.command_buffers = &foreign;
  StatusHolder status(
      halo_sdk_queue_execute(device->queue, device->handle(), &info));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message().rfind("halo_device_queue_execute: "
                                   "info->command_buffers[0]",
                                   0),
            0u)
      << status.message();
  info.command_buffer_count = 0;
  info.affinity = 2;
  StatusHolder affinity(
      halo_sdk_queue_execute(device->queue, device->handle(), &info));
  EXPECT_EQ(affinity.code(), HALO_STATUS_INVALID_ARGUMENT);
  release_device(device);
}

TEST_F(CInterfaceTest, TheLastSubmissionMayTakeTheDeviceAndQueueWithIt) {
  Hooks hooks;
  std::promise<halo_sdk_submission_t*> held;
  hooks.held = &held;
  FakeDevice* device = make_device_with_queue(&hooks);
  std::promise<void> destroyed;
  device->destroyed = &destroyed;
  halo_queue_execute_info_t info = execute_info(nullptr, nullptr, 0, nullptr,
                                                nullptr, 0);
  ASSERT_EQ(halo_sdk_queue_execute(device->queue, device->handle(), &info),
            nullptr);
  // Once the device has the work, let go of the device.
  halo_sdk_submission_t* submission = held.get_future().get();
  release(device);
  // The worker completes it, drops the device's last reference and so
  // destroys the queue on its own thread.
  halo_sdk_submission_complete(submission, nullptr);
  destroyed.get_future().wait();
}

TEST_F(CInterfaceTest, PluginQueryAnswersOnlyAHostThatCanLoadThePlugin) {
  const halo_plugin_descriptor_t descriptor = {
      sizeof(halo_plugin_descriptor_t), HALO_ABI_VERSION, "c_test", "1",
      nullptr};
  halo_plugin_query_params_t params = {};
  params.struct_size = sizeof(params);
  params.abi_version_min = HALO_ABI_VERSION;
  params.abi_version_max = HALO_ABI_VERSION;
  params.host = fake_host_interface();
  EXPECT_EQ(halo_sdk_plugin_query(&params, &descriptor), &descriptor);
  EXPECT_EQ(halo_sdk_plugin_query(nullptr, &descriptor), nullptr);
  // A plugin of a newer minor loads in a host of its major (§2.3).
  halo_plugin_descriptor_t newer_minor = descriptor;
  newer_minor.abi_version = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR,
                                              HALO_ABI_VERSION_MINOR + 1);
  EXPECT_EQ(halo_sdk_plugin_query(&params, &newer_minor), &newer_minor);
  halo_plugin_query_params_t short_params = params;
  short_params.struct_size = 8;
  EXPECT_EQ(halo_sdk_plugin_query(&short_params, &descriptor), nullptr);
  params.abi_version_min = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR + 1, 0);
  params.abi_version_max = params.abi_version_min;
  EXPECT_EQ(halo_sdk_plugin_query(&params, &descriptor), nullptr);
  params.abi_version_min = HALO_ABI_VERSION;
  params.abi_version_max = HALO_ABI_VERSION;
  halo_host_interface_t small = *fake_host_interface();
  small.struct_size = 8;
  params.host = &small;
  EXPECT_EQ(halo_sdk_plugin_query(&params, &descriptor), nullptr);
}

}  // namespace
}  // namespace halo::sdk
