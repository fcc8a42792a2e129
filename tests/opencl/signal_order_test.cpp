// Queue signals land in the order the device completed the work, whatever
// the order of the completion callbacks and whichever thread gets there
// first (plugins/opencl/device_signals.hpp). A signal that lands at or
// below the payload fails its semaphore, so a signal landed out of order
// would fail a correct program.
//
// Runs through held_callback_opencl.cpp (named by HALO_OPENCL_LIBRARY),
// which holds CL_COMPLETE callbacks back until a test delivers them, in
// order or reversed.
#include <dlfcn.h>
#include <pthread.h>

#include <functional>
#include <vector>

#include "held_callback_opencl.hpp"
#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

// The held-callback library's controls, found in the library the plugin
// loaded.
struct HeldCallbacks {
  decltype(&halo_test_hold_callbacks) hold = nullptr;
  decltype(&halo_test_wait_held_commands) wait_commands = nullptr;
  decltype(&halo_test_deliver_held_callbacks) deliver = nullptr;
};

template <class Function>
Function find(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

class SignalOrderTest : public OpenClTest {
 protected:
  void SetUp() override {
    OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    void* library =
        dlopen(HALO_TEST_HELD_CALLBACK_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library, nullptr)
        << "the plugin did not load " HALO_TEST_HELD_CALLBACK_LIBRARY
           "; run with HALO_OPENCL_LIBRARY naming it";
    callbacks_.hold = find<decltype(callbacks_.hold)>(
        library, "halo_test_hold_callbacks");
    callbacks_.wait_commands = find<decltype(callbacks_.wait_commands)>(
        library, "halo_test_wait_held_commands");
    callbacks_.deliver = find<decltype(callbacks_.deliver)>(
        library, "halo_test_deliver_held_callbacks");
    dlclose(library);
    ASSERT_TRUE(callbacks_.hold != nullptr &&
                callbacks_.wait_commands != nullptr &&
                callbacks_.deliver != nullptr);
    // Work of its own for every link, so that each has an event of its own.
    buffer_ = make_buffer(256);
    fill_ = begin_command_buffer();
    const uint32_t pattern = 0x5EC0DE5u;
    HALO_ASSERT_OK(halo_command_buffer_fill(fill_.get(), buffer_.get(), 0,
                                            256, &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_end(fill_.get()));
    callbacks_.hold();
  }

  void TearDown() override {
    // Nothing may stay held past a test that stopped early.
    if (callbacks_.deliver != nullptr) callbacks_.deliver(false);
    fill_.reset();
    buffer_.reset();
    OpenClTest::TearDown();
  }

  // Submits link |value| of a chain on |step|: a fill that waits for
  // value - 1 (nothing for the first link), so the device chains it on the
  // link before, and raises |step| and every one of |others| to |value|.
  halo_status_t submit_link(halo_semaphore_t* step, uint64_t value,
                            std::vector<halo_semaphore_t*> others = {}) {
    std::vector<halo_semaphore_t*> waits;
    std::vector<uint64_t> wait_values;
    if (value > 1) {
      waits = {step};
      wait_values = {value - 1};
    }
    others.insert(others.begin(), step);
    return submit(fill_.get(), waits, wait_values, others,
                  std::vector<uint64_t>(others.size(), value));
  }

  HeldCallbacks callbacks_;
  BufferPtr buffer_;
  CommandBufferPtr fill_;
};

// Returns |semaphore|'s value, failing the test if it failed.
uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  HALO_EXPECT_OK(halo_semaphore_query(semaphore, &value));
  return value;
}

// Runs |body| on a thread with a stack of |bytes|.
void run_with_stack(size_t bytes, const std::function<void()>& body) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, bytes), 0);
  pthread_t thread;
  auto run = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, run,
                           const_cast<std::function<void()>*>(&body)),
            0);
  pthread_attr_destroy(&attributes);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
}

TEST_F(SignalOrderTest, CallbacksInReverseOrderLandTheChainInOrder) {
  constexpr uint64_t kLinks = 64;
  SemaphorePtr step = make_semaphore();
  for (uint64_t value = 1; value <= kLinks; ++value) {
    HALO_ASSERT_OK(submit_link(step.get(), value));
  }
  callbacks_.wait_commands(kLinks);
  // The last link's callback comes first: every link's work is done, so
  // the earlier signals land before it.
  callbacks_.deliver(/*reversed=*/true);
  HALO_ASSERT_OK(
      halo_semaphore_wait(step.get(), kLinks, deadline_in_ms(20000)));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(step.get()), kLinks);
}

TEST_F(SignalOrderTest, HostWaitOnALaterSignalLandsTheEarlierOneFirst) {
  SemaphorePtr step = make_semaphore();
  HALO_ASSERT_OK(submit_link(step.get(), 1));
  HALO_ASSERT_OK(submit_link(step.get(), 2));
  // No callback has come: the waiter lands 2 itself, and 1 before it.
  HALO_ASSERT_OK(
      halo_semaphore_wait(step.get(), 2, HALO_DEADLINE_INFINITE_FUTURE));
  callbacks_.deliver(/*reversed=*/false);
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(step.get()), 2u);
}

TEST_F(SignalOrderTest, OneHostWaitLandsALongChainOnASmallStack) {
  // Under a sanitizer each link costs ten times as much, so the chain is a
  // quarter as long there: the sanitizers look for races and misuse along
  // it, the plain build, with the whole chain, for landing that recurses.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr uint64_t kLinks = 2500;
#else
  constexpr uint64_t kLinks = 10000;
#endif
  SemaphorePtr step = make_semaphore();
  for (uint64_t value = 1; value <= kLinks; ++value) {
    HALO_ASSERT_OK(submit_link(step.get(), value));
  }
  // The waiter lands every signal; a stack of 512 KiB holds no recursion
  // as deep as the chain.
  halo_status_code_t waited = HALO_STATUS_UNKNOWN;
  run_with_stack(512 * 1024, [&] {
    halo_status_t status =
        halo_semaphore_wait(step.get(), kLinks, HALO_DEADLINE_INFINITE_FUTURE);
    waited = halo_status_code(status);
    halo_status_free(status);
  });
  EXPECT_EQ(waited, HALO_STATUS_OK);
  callbacks_.deliver(/*reversed=*/false);
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(60000)));
  EXPECT_EQ(value_of(step.get()), kLinks);
}

// A submission with no commands whose one wait chains on a link's event
// completes with that link: its completion is the link's own event.
TEST_F(SignalOrderTest, SubmissionWithoutCommandsCompletesWithTheLinkItChainsOn) {
  SemaphorePtr step = make_semaphore(), after = make_semaphore();
  HALO_ASSERT_OK(submit_link(step.get(), 1));
  HALO_ASSERT_OK(submit(nullptr, {step.get()}, {1}, {after.get()}, {1}));
  callbacks_.deliver(/*reversed=*/true);
  HALO_ASSERT_OK(halo_semaphore_wait(after.get(), 1, deadline_in_ms(20000)));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(step.get()), 1u);
}

// A submission chained on a link's event holds the link only until its own
// commands are enqueued; one that must first wait on the host holds a
// reference to the event instead, so that the link retires when its work
// is done. A second device of the same OpenCL device shares the context
// (its submissions chain on the first's events) but has a queue of its own,
// whose wait_idle shows the link retired.
TEST_F(SignalOrderTest, LinkRetiresWhileAChainedSubmissionWaitsOnTheHost) {
  DevicePtr second = make_second_device();
  ASSERT_NE(second, nullptr);
  SemaphorePtr step = make_semaphore(), gate = make_semaphore(),
               after = make_semaphore();
  HALO_ASSERT_OK(submit_link(step.get(), 1));
  Status chained(submit(nullptr, {step.get(), gate.get()}, {1, 1},
                        {after.get()}, {1}, second.get()));
  EXPECT_TRUE(chained.ok()) << chained.describe();
  callbacks_.deliver(/*reversed=*/false);
  HALO_EXPECT_OK(halo_semaphore_wait(step.get(), 1, deadline_in_ms(20000)));
  // The chained submission still waits for |gate|.
  HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(after.get()), 0u);
  HALO_EXPECT_OK(halo_semaphore_signal(gate.get(), 1));
  HALO_EXPECT_OK(halo_semaphore_wait(after.get(), 1, deadline_in_ms(20000)));
  HALO_EXPECT_OK(halo_device_wait_idle(second.get(), deadline_in_ms(20000)));
}

#ifdef HALO_TEST_CPU_MANIFEST
// A device of the cpu plugin, whose semaphores are foreign to the opencl
// plugin.
class CpuDevice {
 public:
  CpuDevice() {
    const char* paths[] = {HALO_TEST_CPU_MANIFEST};
    halo_registry_options_t options = {};
    options.struct_size = sizeof(options);
    options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                    HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
    options.plugin_path_count = 1;
    options.plugin_paths = paths;
    halo_status_free(halo_registry_create(&options, &registry_));
    if (registry_ != nullptr) {
      halo_status_free(halo_registry_create_device(registry_, 0, nullptr,
                                                   &device_));
    }
  }
  ~CpuDevice() {
    halo_device_release(device_);
    halo_registry_release(registry_);
  }
  halo_device_t* get() const { return device_; }

 private:
  halo_registry_t* registry_ = nullptr;
  halo_device_t* device_ = nullptr;
};

TEST_F(SignalOrderTest, HostWaitLeavesAnotherPluginsSignalsToTheCallbacks) {
  CpuDevice cpu;
  ASSERT_NE(cpu.get(), nullptr) << "the cpu plugin did not load";
  SemaphorePtr step = make_semaphore();
  halo_semaphore_t* foreign = nullptr;
  HALO_ASSERT_OK(halo_semaphore_create(cpu.get(), 0, HALO_SEMAPHORE_FLAG_NONE,
                                       &foreign));
  SemaphorePtr foreign_owner(foreign);
  HALO_ASSERT_OK(submit_link(step.get(), 1, {foreign}));
  HALO_ASSERT_OK(submit_link(step.get(), 2, {foreign}));
  // Landing the second link's signal on |step| early must not land its
  // signal on |foreign| ahead of the first link's.
  HALO_ASSERT_OK(
      halo_semaphore_wait(step.get(), 2, HALO_DEADLINE_INFINITE_FUTURE));
  callbacks_.deliver(/*reversed=*/false);
  HALO_ASSERT_OK(halo_semaphore_wait(foreign, 2, deadline_in_ms(20000)));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(foreign), 2u);
  EXPECT_EQ(value_of(step.get()), 2u);
}
#endif  // HALO_TEST_CPU_MANIFEST

}  // namespace
}  // namespace halo_opencl_test
