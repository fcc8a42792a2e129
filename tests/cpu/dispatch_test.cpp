// Dispatch on the cpu device: workgroups spread over the worker pool for
// several HALO_CPU_WORKERS settings, constants of every kind, several
// bindings, long command buffers, and every dispatch error.
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>

#include "work_test_util.hpp"

namespace halo_cpu_test {
namespace {

using DispatchTest = WorkTest;

// Sets HALO_CPU_WORKERS for the devices created while it lives. Devices
// read it once, when created, on the creating thread.
class ScopedWorkers {
 public:
  explicit ScopedWorkers(const char* value) {
    setenv("HALO_CPU_WORKERS", value, 1);
  }
  ~ScopedWorkers() { unsetenv("HALO_CPU_WORKERS"); }
};

void expect_status(const Status& status, halo_status_code_t code,
                   const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.describe();
  EXPECT_NE(status.message().find(words), std::string::npos)
      << status.describe();
}

uint32_t workgroups_for(uint32_t elements) { return (elements + 63) / 64; }

// y = a * x + y over |n| elements on |device|; checks every element.
void check_saxpy(WorkTest& test, halo_device_t* device, uint32_t n) {
  BufferPtr y = test.make_buffer(n * 4, kAllUsage, kHostMemory, device);
  BufferPtr x = test.make_buffer(n * 4, kAllUsage, kHostMemory, device);
  auto* ys = test.map<float>(y.get());
  auto* xs = test.map<float>(x.get());
  for (uint32_t i = 0; i < n; ++i) {
    ys[i] = static_cast<float>(i);
    xs[i] = 1.0f;
  }
  ExecutablePtr kernels = test.test_kernels(device);
  DispatchSpec saxpy;
  saxpy.executable = kernels.get();
  saxpy.entry_point = "saxpy";
  saxpy.workgroups[0] = workgroups_for(n);
  saxpy.buffers = {y.get(), x.get()};
  saxpy.constants.add(2.0f).add(n);
  CommandBufferPtr command_buffer =
      test.make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device);
  HALO_EXPECT_STATUS_OK(test.dispatch(command_buffer.get(), saxpy));
  test.end_and_run(command_buffer.get(), device);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(ys[i], static_cast<float>(i) + 2.0f) << "element " << i;
  }
}

TEST_F(DispatchTest, SaxpyAcrossThePoolForEveryWorkerCount) {
  for (const char* workers : {"1", "2", "3", "8"}) {
    SCOPED_TRACE(workers);
    ScopedWorkers scoped(workers);
    DevicePtr device = make_device();
    check_saxpy(*this, device.get(), 10000);
    check_saxpy(*this, device.get(), 1);
  }
}

// An unusable HALO_CPU_WORKERS is logged and ignored, never fatal.
TEST_F(DispatchTest, InvalidWorkerCountsFallBackToTheDefault) {
  for (const char* workers : {"0", "-3", "four", "8x", "100000", ""}) {
    SCOPED_TRACE(workers);
    ScopedWorkers scoped(workers);
    DevicePtr device = make_device();
    ASSERT_NE(device, nullptr);
    check_saxpy(*this, device.get(), 300);
  }
}

// Four workgroups that each wait for all four to have started can only
// finish when four threads run them at once: the three pool threads and
// the queue's worker.
TEST_F(DispatchTest, WorkgroupsRunConcurrentlyOnThePoolAndTheQueueWorker) {
  ScopedWorkers scoped("4");
  DevicePtr device = make_device();
  BufferPtr counter = make_buffer(4, kAllUsage, kHostMemory, device.get());
  BufferPtr results = make_buffer(16, kAllUsage, kHostMemory, device.get());
  map<uint32_t>(counter.get())[0] = 0;
  auto* arrived = map<uint32_t>(results.get());
  std::fill(arrived, arrived + 4, 0u);
  ExecutablePtr kernels = test_kernels(device.get());
  DispatchSpec rendezvous;
  rendezvous.executable = kernels.get();
  rendezvous.entry_point = "rendezvous";
  rendezvous.workgroups[0] = 4;
  rendezvous.buffers = {counter.get(), results.get()};
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), rendezvous));
  end_and_run(command_buffer.get(), device.get());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(arrived[i], 1u) << "workgroup " << i;
}

// The thread that signals a submission's semaphores is the queue's worker;
// a timepoint callback on the signal records it. Waiters on the semaphore
// may be released before the callback has run, so the test waits for the
// callback itself. It notifies while holding the lock, so the waiter cannot
// return and destroy this object while the callback still touches it.
class SignallingThread {
 public:
  static void callback(void* user_data, halo_timepoint_t*,
                       halo_status_t status) {
    halo_status_free(status);
    auto* self = static_cast<SignallingThread*>(user_data);
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->tid_ = static_cast<uint32_t>(syscall(SYS_gettid));
    self->recorded_.notify_all();
  }

  uint32_t wait_for_tid() {
    std::unique_lock<std::mutex> lock(mutex_);
    recorded_.wait(lock, [this] { return tid_ != 0; });
    return tid_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable recorded_;
  uint32_t tid_ = 0;
};

TEST_F(DispatchTest, OneWorkgroupRunsInlineOnTheQueueWorker) {
  ScopedWorkers scoped("4");
  DevicePtr device = make_device();
  BufferPtr tids = make_buffer(4, kAllUsage, kHostMemory, device.get());
  ExecutablePtr kernels = test_kernels(device.get());
  DispatchSpec thread_ids;
  thread_ids.executable = kernels.get();
  thread_ids.entry_point = "thread_ids";
  thread_ids.buffers = {tids.get()};
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), thread_ids));
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer.get()));
  SemaphorePtr done = make_semaphore(0);
  SignallingThread signaller;
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 1;
  timepoint.callback = &SignallingThread::callback;
  timepoint.user_data = &signaller;
  HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(done.get(), &timepoint));
  HALO_EXPECT_STATUS_OK(execute({command_buffer.get()}, {}, {}, {done.get()},
                                {1}, device.get()));
  HALO_EXPECT_OK(
      halo_semaphore_wait(done.get(), 1, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(map<uint32_t>(tids.get())[0], signaller.wait_for_tid());
}

// Workgroups of many dispatches only ever run on the same few threads:
// the pool is made once per device, not per dispatch.
TEST_F(DispatchTest, PoolThreadsPersistAcrossDispatches) {
  constexpr uint32_t kDispatches = 20;
  constexpr uint32_t kWorkgroups = 64;
  ScopedWorkers scoped("3");
  DevicePtr device = make_device();
  BufferPtr tids = make_buffer(kDispatches * kWorkgroups * 4, kAllUsage,
                               kHostMemory, device.get());
  auto* recorded = map<uint32_t>(tids.get());
  std::fill(recorded, recorded + kDispatches * kWorkgroups, 0u);
  ExecutablePtr kernels = test_kernels(device.get());
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
  uint32_t ordinal = entry_point(kernels.get(), "thread_ids");
  for (uint32_t d = 0; d < kDispatches; ++d) {
    halo_buffer_binding_t binding = {tids.get(), d * kWorkgroups * 4,
                                     kWorkgroups * 4};
    halo_dispatch_params_t params = {};
    params.struct_size = sizeof(params);
    params.executable = kernels.get();
    params.entry_point = ordinal;
    params.workgroup_count[0] = kWorkgroups;
    params.workgroup_count[1] = 1;
    params.workgroup_count[2] = 1;
    params.binding_count = 1;
    params.bindings = &binding;
    HALO_EXPECT_OK(halo_command_buffer_dispatch(command_buffer.get(), &params));
  }
  end_and_run(command_buffer.get(), device.get());
  std::set<uint32_t> threads(recorded, recorded + kDispatches * kWorkgroups);
  EXPECT_EQ(threads.count(0u), 0u) << "a workgroup did not run";
  EXPECT_LE(threads.size(), 3u);
}

TEST_F(DispatchTest, WorkgroupIdsCoverAThreeDimensionalGrid) {
  ScopedWorkers scoped("3");
  DevicePtr device = make_device();
  const uint32_t count[3] = {3, 4, 5};
  const uint32_t total = count[0] * count[1] * count[2];
  BufferPtr out = make_buffer(total * 6 * 4, kAllUsage, kHostMemory,
                              device.get());
  auto* words = map<uint32_t>(out.get());
  std::fill(words, words + total * 6, ~0u);
  ExecutablePtr kernels = test_kernels(device.get());
  DispatchSpec ids;
  ids.executable = kernels.get();
  ids.entry_point = "workgroup_ids";
  std::copy(count, count + 3, ids.workgroups);
  ids.buffers = {out.get()};
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), ids));
  end_and_run(command_buffer.get(), device.get());
  for (uint32_t z = 0; z < count[2]; ++z) {
    for (uint32_t y = 0; y < count[1]; ++y) {
      for (uint32_t x = 0; x < count[0]; ++x) {
        const uint32_t* record = words + ((z * count[1] + y) * count[0] + x) * 6;
        const uint32_t expected[6] = {x, y, z, count[0], count[1], count[2]};
        for (int k = 0; k < 6; ++k) {
          ASSERT_EQ(record[k], expected[k]) << x << "," << y << "," << z;
        }
      }
    }
  }
}

TEST_F(DispatchTest, ConstantsOfEveryKindArriveInOrder) {
  BufferPtr out = make_buffer(6 * 8);
  auto* words = map<uint64_t>(out.get());
  ExecutablePtr kernels = test_kernels();
  DispatchSpec constants;
  constants.executable = kernels.get();
  constants.entry_point = "constants";
  constants.buffers = {out.get()};
  const int64_t big = -(int64_t{1} << 40) - 3;
  const uint64_t huge = (uint64_t{1} << 63) + 7;
  constants.constants.add(int32_t{-5})
      .add(big)
      .add(2.5f)
      .add(-1.25)
      .add(uint32_t{0xDEADBEEF})
      .add(huge);
  ASSERT_EQ(constants.constants.bytes().size(), 48u);
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), constants));
  end_and_run(command_buffer.get());
  float c = 2.5f;
  double d = -1.25;
  uint32_t c_bits = 0;
  uint64_t d_bits = 0;
  std::memcpy(&c_bits, &c, 4);
  std::memcpy(&d_bits, &d, 8);
  EXPECT_EQ(words[0], static_cast<uint64_t>(int64_t{-5}));
  EXPECT_EQ(words[1], static_cast<uint64_t>(big));
  EXPECT_EQ(words[2], c_bits);
  EXPECT_EQ(words[3], d_bits);
  EXPECT_EQ(words[4], 0xDEADBEEFu);
  EXPECT_EQ(words[5], huge);
}

// Four bindings, at offsets inside their buffers, one buffer bound twice.
TEST_F(DispatchTest, SeveralBindingsWithOffsets) {
  constexpr uint32_t kN = 256;  // kN * 4 bytes is a multiple of 64.
  BufferPtr out = make_buffer(kN * 4 + 128);
  BufferPtr in = make_buffer(kN * 4 * 2 + 64);
  auto* inputs = map<uint32_t>(in.get());
  for (uint32_t i = 0; i < kN * 2 + 16; ++i) inputs[i] = i;
  ExecutablePtr kernels = test_kernels();
  halo_buffer_binding_t bindings[4] = {
      {out.get(), 128, HALO_WHOLE_BUFFER},
      {in.get(), 0, kN * 4},
      {in.get(), 64, kN * 4},
      {in.get(), 64 + kN * 4, HALO_WHOLE_BUFFER},
  };
  Constants constants;
  constants.add(kN);
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.executable = kernels.get();
  params.entry_point = entry_point(kernels.get(), "add3");
  params.workgroup_count[0] = workgroups_for(kN);
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  params.constant_size = 4;
  params.constants = constants.bytes().data();
  params.binding_count = 4;
  params.bindings = bindings;
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_OK(halo_command_buffer_dispatch(command_buffer.get(), &params));
  end_and_run(command_buffer.get());
  const uint32_t* result = map<uint32_t>(out.get()) + 32;
  for (uint32_t i = 0; i < kN; ++i) {
    // in[i] + in[16 + i] + in[16 + kN + i]
    ASSERT_EQ(result[i], 3 * i + 32 + kN) << "element " << i;
  }
}

// A thousand dispatches in one command buffer run in order, each complete
// before the next starts (overlap would lose increments).
TEST_F(DispatchTest, AThousandDispatchesInOneCommandBuffer) {
  constexpr uint32_t kN = 1000;
  ScopedWorkers scoped("4");
  DevicePtr device = make_device();
  BufferPtr data = make_buffer(kN * 4, kAllUsage, kHostMemory, device.get());
  auto* values = map<uint32_t>(data.get());
  std::fill(values, values + kN, 0u);
  ExecutablePtr kernels = test_kernels(device.get());
  DispatchSpec increment;
  increment.executable = kernels.get();
  increment.entry_point = "increment";
  increment.workgroups[0] = workgroups_for(kN);
  increment.buffers = {data.get()};
  increment.constants.add(kN);
  CommandBufferPtr command_buffer =
      make_command_buffer(HALO_COMMAND_BUFFER_MODE_ONE_SHOT, device.get());
  for (int i = 0; i < 1000; ++i) {
    Status status = dispatch(command_buffer.get(), increment);
    ASSERT_TRUE(status.ok()) << status.describe();
  }
  end_and_run(command_buffer.get(), device.get());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(values[i], 1000u) << i;
}

TEST_F(DispatchTest, AnEmptyGridRunsNothing) {
  BufferPtr data = make_buffer(4);
  map<uint32_t>(data.get())[0] = 0;
  ExecutablePtr kernels = test_kernels();
  DispatchSpec increment;
  increment.executable = kernels.get();
  increment.entry_point = "increment";
  increment.workgroups[0] = 0;
  increment.workgroups[1] = 9;
  increment.buffers = {data.get()};
  increment.constants.add(uint32_t{1});
  CommandBufferPtr command_buffer = make_command_buffer();
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), increment));
  end_and_run(command_buffer.get());
  EXPECT_EQ(map<uint32_t>(data.get())[0], 0u);
}

// The command buffer retains the executable and the bound buffers, so the
// caller may release them right after recording.
TEST_F(DispatchTest, RetainsItsExecutableAndBindings) {
  BufferPtr out = make_buffer(64 * 4);
  auto* values = map<uint32_t>(out.get());
  BufferPtr scratch = make_buffer(64 * 4);
  ExecutablePtr kernels = test_kernels();
  CommandBufferPtr command_buffer = make_command_buffer();
  DispatchSpec iota;
  iota.executable = kernels.get();
  iota.entry_point = "iota";
  iota.buffers = {scratch.get()};
  iota.constants.add(uint32_t{100}).add(uint32_t{64});
  HALO_EXPECT_STATUS_OK(dispatch(command_buffer.get(), iota));
  HALO_EXPECT_OK(halo_command_buffer_copy(command_buffer.get(), scratch.get(),
                                          0, out.get(), 0, 64 * 4));
  kernels.reset();
  scratch.reset();
  end_and_run(command_buffer.get());
  command_buffer.reset();
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(values[i], 100 + i);
}

// An executable object of "another plugin" (see command_buffer_test.cpp).
struct ForeignExecutable {
  halo_object_t header;
  static void destroy(halo_object_t*) {}
  static const halo_executable_vtable_t kVtable;
  ForeignExecutable() : header(HALO_OBJECT_HEADER_INIT(&kVtable)) {}
};
const halo_executable_vtable_t ForeignExecutable::kVtable = {
    {sizeof(halo_executable_vtable_t), HALO_OBJECT_TYPE_EXECUTABLE,
     &ForeignExecutable::destroy},
    nullptr, nullptr, nullptr};

class DispatchErrorTest : public DispatchTest {
 protected:
  void SetUp() override {
    DispatchTest::SetUp();
    buffer_ = make_buffer(1024);
    kernels_ = test_kernels();
    command_buffer_ = make_command_buffer();
    constants_.add(uint32_t{2}).add(uint32_t{1024});
    binding_ = {buffer_.get(), 0, HALO_WHOLE_BUFFER};
    params_.struct_size = sizeof(params_);
    params_.executable = kernels_.get();
    params_.entry_point = entry_point(kernels_.get(), "iota");
    params_.workgroup_count[0] = 16;
    params_.workgroup_count[1] = 1;
    params_.workgroup_count[2] = 1;
    params_.constant_size = 8;
    params_.constants = constants_.bytes().data();
    params_.binding_count = 1;
    params_.bindings = &binding_;
  }
  Status record() {
    return Status(halo_command_buffer_dispatch(command_buffer_.get(), &params_));
  }

  BufferPtr buffer_;
  ExecutablePtr kernels_;
  CommandBufferPtr command_buffer_;
  Constants constants_;
  halo_buffer_binding_t binding_;
  halo_dispatch_params_t params_ = {};
};

TEST_F(DispatchErrorTest, TheValidDispatchRecords) {
  HALO_EXPECT_STATUS_OK(record());
}

TEST_F(DispatchErrorTest, EntryPointBindingAndConstantMismatches) {
  params_.entry_point = 99;
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "params->entry_point");
  params_.entry_point = entry_point(kernels_.get(), "iota");
  params_.binding_count = 0;
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "binding_count");
  params_.binding_count = 1;
  params_.constant_size = 4;
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "constant_size");
}

TEST_F(DispatchErrorTest, BindingErrors) {
  binding_.offset = 32;  // Not a multiple of min_buffer_alignment (64).
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "min_buffer_alignment");
  binding_.offset = 1024;  // At the end: an empty binding.
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "is empty");
  binding_.offset = 1088;
  expect_status(record(), HALO_STATUS_OUT_OF_RANGE, "params->bindings[0]");
  binding_.offset = 512;
  binding_.length = 513;
  expect_status(record(), HALO_STATUS_OUT_OF_RANGE, "params->bindings[0]");
  BufferPtr not_storage = make_buffer(1024, HALO_BUFFER_USAGE_MAPPING);
  binding_ = {not_storage.get(), 0, HALO_WHOLE_BUFFER};
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "DISPATCH_STORAGE");
}

TEST_F(DispatchErrorTest, ObjectsOfAnotherDeviceOrPlugin) {
  DevicePtr other = make_device();
  BufferPtr their_buffer =
      make_buffer(1024, kAllUsage, kHostMemory, other.get());
  binding_.buffer = their_buffer.get();
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT,
                "params->bindings[0] belongs to another device");
  binding_.buffer = buffer_.get();
  ExecutablePtr their_kernels = test_kernels(other.get());
  params_.executable = their_kernels.get();
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT,
                "params->executable belongs to another device");
  ForeignExecutable foreign;
  params_.executable = reinterpret_cast<halo_executable_t*>(&foreign);
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "another plugin");
}

TEST_F(DispatchErrorTest, MoreThanTwoToTheSixtyFourWorkgroups) {
  params_.workgroup_count[0] = UINT32_MAX;
  params_.workgroup_count[1] = UINT32_MAX;
  params_.workgroup_count[2] = 2;
  expect_status(record(), HALO_STATUS_INVALID_ARGUMENT, "2^64");
}

TEST_F(DispatchErrorTest, DispatchNeedsTheRecordingState) {
  HALO_EXPECT_OK(halo_command_buffer_end(command_buffer_.get()));
  expect_status(record(), HALO_STATUS_FAILED_PRECONDITION,
                "halo_command_buffer_dispatch");
}

}  // namespace
}  // namespace halo_cpu_test
