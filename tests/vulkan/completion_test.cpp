// How the queue learns that the GPU finished a submission
// (plugins/vulkan/hand_off.cpp). Behind a submission still in flight, one
// that signals an unshared semaphore of its own device signals nothing
// else: that signal shows its end. The first submission in flight, and one
// that signals no such semaphore, also signal the queue's completion
// semaphore, which the notification thread sleeps on when nothing is in
// flight.
//
// CTest runs these under a layer (vulkan_gate) that counts the semaphores
// every vkQueueSubmit signals and can hold the first batch on the GPU until
// the test lets it go, so "still in flight" holds by construction.
#include <dlfcn.h>

#include <cstdlib>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

class SubmissionGate : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const char* layer = std::getenv("HALO_TEST_SUBMISSION_GATE");
    if (layer == nullptr) {
      GTEST_SKIP() << "runs under the layer VK_LAYER_HALO_test_submission_"
                      "gate, as CTest does (vulkan_gate)";
    }
    // The copy the Vulkan loader opened, or nothing.
    library_ = dlopen(layer, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library_, nullptr)
        << layer << " is not loaded: is VK_LAYER_HALO_test_submission_gate "
        << "active?";
    signals_ = find<uint64_t (*)()>("halo_test_gate_signals");
    batches_ = find<uint64_t (*)()>("halo_test_gate_batches");
    close_ = find<void (*)()>("halo_test_gate_close");
    holding_ = find<bool (*)()>("halo_test_gate_holding");
    open_ = find<bool (*)()>("halo_test_gate_open");
    remove_ = find<void (*)()>("halo_test_gate_remove");
  }

  void TearDown() override {
    if (remove_ != nullptr) {
      if (holding_()) open_();
      HALO_EXPECT_OK(
          halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
      remove_();
    }
    VulkanTest::TearDown();
    if (library_ != nullptr) dlclose(library_);
  }

  template <class Function>
  Function find(const char* name) {
    auto function = reinterpret_cast<Function>(dlsym(library_, name));
    EXPECT_NE(function, nullptr) << dlerror();
    return function;
  }

  // Submits, with no command buffers, a wait of |wait| for |wait_value|
  // (none when NULL) and a signal of |signal| with |signal_value|.
  halo_status_t link(halo_semaphore_t* wait, uint64_t wait_value,
                     halo_semaphore_t* signal, uint64_t signal_value) {
    std::vector<halo_semaphore_t*> waits, signals;
    std::vector<uint64_t> wait_values, signal_values;
    if (wait != nullptr) {
      waits.push_back(wait);
      wait_values.push_back(wait_value);
    }
    signals.push_back(signal);
    signal_values.push_back(signal_value);
    return submit(nullptr, waits, wait_values, signals, signal_values);
  }

  uint64_t (*signals_)() = nullptr;
  uint64_t (*batches_)() = nullptr;
  void (*close_)() = nullptr;
  bool (*holding_)() = nullptr;
  bool (*open_)() = nullptr;
  void (*remove_)() = nullptr;

 private:
  void* library_ = nullptr;
};

TEST_F(SubmissionGate, LinksBehindWorkInFlightSignalOnlyTheirOwnSemaphore) {
  SemaphorePtr chain = make_semaphore();
  const uint64_t before = signals_();
  close_();
  // The first link: its own signal and the completion semaphore's.
  HALO_ASSERT_OK(link(nullptr, 0, chain.get(), 1));
  ASSERT_TRUE(holding_()) << "the layer did not hold the first batch";
  EXPECT_EQ(signals_() - before, 2u);
  // Nine links waiting on the GPU behind it: one signal each.
  constexpr uint64_t kLinks = 10;
  for (uint64_t value = 2; value <= kLinks; ++value) {
    HALO_ASSERT_OK(link(chain.get(), value - 1, chain.get(), value));
  }
  EXPECT_EQ(signals_() - before, 2u + (kLinks - 1));
  // Nothing has finished: the first batch is still at the gate.
  uint64_t value = 0;
  HALO_ASSERT_OK(halo_semaphore_query(chain.get(), &value));
  EXPECT_EQ(value, 0u);
  ASSERT_TRUE(open_());
  HALO_EXPECT_OK(wait(chain.get(), kLinks));
  // The queue saw every link finish: wait_idle returns.
  HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
}

TEST_F(SubmissionGate, LinksWithoutTheirOwnSignalStillSignalCompletion) {
  SemaphorePtr chain = make_semaphore();
  SemaphorePtr foreign = make_semaphore(0, cpu_device());
  ASSERT_NE(foreign, nullptr);
  const uint64_t before = signals_();
  close_();
  HALO_ASSERT_OK(link(nullptr, 0, chain.get(), 1));
  ASSERT_TRUE(holding_());
  // Behind it, a link whose only signal is another plugin's semaphore,
  // which the host signals after the GPU is done: the completion semaphore
  // is all that shows its end.
  HALO_ASSERT_OK(link(chain.get(), 1, foreign.get(), 1));
  EXPECT_EQ(signals_() - before, 2u + 1u);
  ASSERT_TRUE(open_());
  HALO_EXPECT_OK(wait(foreign.get(), 1));
  HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
}

// With the notification thread polling (vulkan_gate.polled): a submission
// handed off while the thread polls ends by its own signal alone, as the
// thread watches for it. If it is still in flight when the thread stops
// polling, the thread's sleep must first submit a probe behind it, which
// signals the completion semaphore it sleeps on. Without the probe, an
// unsliced sleep would last past the submission's end and never retire
// it; sliced sleeps (lavapipe's) still retire it, only late. The test
// therefore checks for the probe's batch itself. The gate holds the
// submission past the thread's patience, whatever the timing.
// Whether the thread is polling when a submission comes is up to timing,
// so the test submits right after a round trip, when the thread polls for
// the next hand-off, until one submission has come while it polled.
using SubmissionGatePolled = SubmissionGate;

TEST_F(SubmissionGatePolled, WorkHandedOffWhilePollingIsRetiredAfterItStops) {
  SemaphorePtr warm = make_semaphore();
  SemaphorePtr held = make_semaphore();
  constexpr uint64_t kAttempts = 50;
  bool came_while_polling = false;
  for (uint64_t value = 1; value <= kAttempts && !came_while_polling; ++value) {
    HALO_ASSERT_OK(link(nullptr, 0, warm.get(), value));
    HALO_ASSERT_OK(wait(warm.get(), value));
    const uint64_t signals_before = signals_();
    close_();
    HALO_ASSERT_OK(link(nullptr, 0, held.get(), value));
    ASSERT_TRUE(holding_()) << "the layer did not hold the batch";
    const uint64_t batches_after = batches_();
    // One signal, held's own: it came while the thread polled, and the
    // gate holds it (the layer counts a batch as it decides whether to
    // hold it). More: the batch signalled the completion semaphore too, as
    // the thread was not polling, or the thread's own probe for the warm
    // submission came in between, and the gate may hold that instead.
    came_while_polling = signals_() - signals_before == 1;
    if (came_while_polling) {
      EXPECT_TRUE(spin_until([&] { return batches_() > batches_after; }))
          << "the thread stopped polling and submitted no probe behind the "
             "held work";
    }
    ASSERT_TRUE(open_());
    HALO_ASSERT_OK(wait(held.get(), value));
    // The queue retired it: wait_idle returns.
    HALO_ASSERT_OK(
        halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
    // The gate holds one batch in its life.
    remove_();
  }
  if (!came_while_polling) {
    GTEST_SKIP() << "no submission came while the thread polled, in "
                 << kAttempts << " attempts (is HALO_VULKAN_COMPLETION_POLL=1 "
                 << "set, as vulkan_gate.polled does?)";
  }
}

}  // namespace
}  // namespace halo_vulkan_test
