// Timepoints on Vulkan semaphores that the GPU signals. The host learns of a
// GPU signal only through the queue's notification thread, which watches
// every semaphore with pending timepoints and fires them as the payload
// rises; a timepoint registered after the GPU signalled must still run
// inline, though the plugin's own record of the payload lags; and cancels
// racing the notification thread are exact: a cancelled timepoint never
// runs, any other ran exactly once before its cancel returned.
#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "vulkan_test_util.hpp"

namespace halo_vulkan_test {
namespace {

// One registration and what its callback saw.
struct Probe {
  halo_timepoint_t timepoint = {};
  std::atomic<int> calls{0};
  std::atomic<int> failures{0};
  std::thread::id thread;
  std::atomic<int>* fired = nullptr;
};

void on_timepoint(void* user_data, halo_timepoint_t*, halo_status_t status) {
  auto* probe = static_cast<Probe*>(user_data);
  probe->thread = std::this_thread::get_id();
  if (status != nullptr) {
    probe->failures.fetch_add(1, std::memory_order_relaxed);
    halo_status_free(status);
  }
  probe->calls.fetch_add(1, std::memory_order_release);
  if (probe->fired != nullptr) {
    probe->fired->fetch_add(1, std::memory_order_release);
  }
}

// |count| probes for the values |first|, |first| + 1, …, counting into
// |fired|.
std::vector<std::unique_ptr<Probe>> make_probes(size_t count, uint64_t first,
                                                std::atomic<int>* fired) {
  std::vector<std::unique_ptr<Probe>> probes;
  for (size_t i = 0; i < count; ++i) {
    auto probe = std::make_unique<Probe>();
    probe->timepoint.struct_size = sizeof(probe->timepoint);
    probe->timepoint.value = first + i;
    probe->timepoint.callback = &on_timepoint;
    probe->timepoint.user_data = probe.get();
    probe->fired = fired;
    probes.push_back(std::move(probe));
  }
  return probes;
}

class TimepointTest : public VulkanTest {
 protected:
  // A host-signalled semaphore that holds a submission back until the
  // test has registered its timepoints. It is the cpu plugin's, so the
  // submission reaches the GPU with no native wait at all: only the
  // semaphores under test are Vulkan's. (The 1.3.2xx validation layers'
  // tracking of a native wait on a value another thread signalled from the
  // host can stall for 10 s, which would only slow these tests down.)
  SemaphorePtr make_gate() { return make_semaphore(0, cpu_device()); }
};

TEST_F(TimepointTest, DeviceSignalFiresEveryReachedTimepointOnce) {
  constexpr size_t kReached = 1000, kBeyond = 10;
  SemaphorePtr semaphore = make_semaphore(), gate = make_gate();
  std::atomic<int> fired{0};
  auto probes = make_probes(kReached + kBeyond, 1, &fired);
  // Registered in reverse, so the semaphore has to order them itself.
  for (size_t i = probes.size(); i-- > 0;) {
    HALO_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore.get(),
                                                    &probes[i]->timepoint));
  }
  EXPECT_EQ(fired.load(), 0);
  // One GPU signal to kReached, held back until every timepoint is in.
  HALO_ASSERT_OK(
      submit(nullptr, {gate.get()}, {1}, {semaphore.get()}, {kReached}));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  ASSERT_TRUE(spin_until([&] { return fired.load() >= int{kReached}; }))
      << fired.load() << " of " << kReached << " timepoints fired";
  HALO_ASSERT_OK(wait(semaphore.get(), kReached));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
  for (size_t i = 0; i < kReached; ++i) {
    const Probe& probe = *probes[i];
    EXPECT_EQ(probe.calls.load(std::memory_order_acquire), 1)
        << "value " << i + 1;
    EXPECT_EQ(probe.failures.load(), 0) << "value " << i + 1;
    // The GPU signalled: only the notification thread can have seen it.
    EXPECT_NE(probe.thread, std::this_thread::get_id()) << "value " << i + 1;
  }
  // The ones beyond the signal are still pending, and cancel cleanly.
  for (size_t i = kReached; i < probes.size(); ++i) {
    EXPECT_EQ(probes[i]->calls.load(), 0) << "value " << i + 1;
    bool cancelled = false;
    HALO_ASSERT_OK(halo_semaphore_cancel_timepoint(
        semaphore.get(), &probes[i]->timepoint, &cancelled));
    EXPECT_TRUE(cancelled) << "value " << i + 1;
  }
  EXPECT_EQ(fired.load(), int{kReached});
}

TEST_F(TimepointTest, RunsInlineOnceTheDeviceHasSignalled) {
  // The GPU signals 5 on a semaphore nobody watches: the host wait reads
  // the VkSemaphore, but the plugin's own record of the payload has not
  // moved. A timepoint at or below 5 must still run before acquire returns.
  SemaphorePtr semaphore = make_semaphore();
  HALO_ASSERT_OK(submit(nullptr, {}, {}, {semaphore.get()}, {5}));
  HALO_ASSERT_OK(wait(semaphore.get(), 5));
  auto probes = make_probes(3, 4, nullptr);  // Values 4, 5 and 6.
  for (auto& probe : probes) {
    HALO_ASSERT_OK(
        halo_semaphore_acquire_timepoint(semaphore.get(), &probe->timepoint));
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(probes[i]->calls.load(std::memory_order_acquire), 1)
        << "value " << probes[i]->timepoint.value;
    EXPECT_EQ(probes[i]->thread, std::this_thread::get_id());
  }
  EXPECT_EQ(probes[2]->calls.load(), 0);
  bool cancelled = false;
  HALO_ASSERT_OK(halo_semaphore_cancel_timepoint(
      semaphore.get(), &probes[2]->timepoint, &cancelled));
  EXPECT_TRUE(cancelled);
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
}

TEST_F(TimepointTest, NotifierWatchesManySemaphoresAtOnce) {
  // One submission signals 64 semaphores, each with a timepoint: the
  // notification thread waits on all of them together.
  constexpr size_t kCount = 64;
  std::vector<SemaphorePtr> semaphores;
  std::vector<halo_semaphore_t*> handles;
  for (size_t i = 0; i < kCount; ++i) {
    semaphores.push_back(make_semaphore());
    handles.push_back(semaphores.back().get());
  }
  SemaphorePtr gate = make_gate();
  std::atomic<int> fired{0};
  std::vector<std::unique_ptr<Probe>> first;
  for (size_t i = 0; i < kCount; ++i) {
    first.push_back(std::move(make_probes(1, 1, &fired)[0]));
    HALO_ASSERT_OK(
        halo_semaphore_acquire_timepoint(handles[i], &first[i]->timepoint));
  }
  HALO_ASSERT_OK(submit(nullptr, {gate.get()}, {1}, handles,
                        std::vector<uint64_t>(kCount, 1)));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
  ASSERT_TRUE(spin_until([&] { return fired.load() >= int{kCount}; }))
      << fired.load() << " of " << kCount << " timepoints fired";
  // The semaphores left the watch list with their last timepoint; half of
  // them come back with a new one, the other half's is cancelled before
  // the device signals again.
  std::vector<std::unique_ptr<Probe>> second;
  for (size_t i = 0; i < kCount; ++i) {
    second.push_back(std::move(make_probes(1, 2, &fired)[0]));
    HALO_ASSERT_OK(
        halo_semaphore_acquire_timepoint(handles[i], &second[i]->timepoint));
  }
  for (size_t i = 1; i < kCount; i += 2) {
    bool cancelled = false;
    HALO_ASSERT_OK(halo_semaphore_cancel_timepoint(
        handles[i], &second[i]->timepoint, &cancelled));
    EXPECT_TRUE(cancelled) << "semaphore " << i;
  }
  HALO_ASSERT_OK(submit(nullptr, {gate.get()}, {2}, handles,
                        std::vector<uint64_t>(kCount, 2)));
  HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 2));
  ASSERT_TRUE(spin_until([&] {
    return fired.load() >= int{kCount + kCount / 2};
  })) << fired.load() - int{kCount}
      << " of " << kCount / 2 << " second timepoints fired";
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
  for (size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(first[i]->calls.load(std::memory_order_acquire), 1) << i;
    EXPECT_EQ(second[i]->calls.load(std::memory_order_acquire),
              i % 2 == 0 ? 1 : 0)
        << i;
  }
  EXPECT_EQ(fired.load(), int{kCount + kCount / 2});
}

TEST_F(TimepointTest, CancelsRaceTheDeviceSignalExactly) {
  constexpr int kRounds = 20;
  constexpr size_t kCount = 200;
  std::mt19937 random(0x5eed);
  int cancelled_total = 0, fired_total = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    SemaphorePtr semaphore = make_semaphore(), gate = make_gate();
    std::atomic<int> fired{0};
    auto probes = make_probes(kCount, 1, &fired);
    for (auto& probe : probes) {
      HALO_ASSERT_OK(
          halo_semaphore_acquire_timepoint(semaphore.get(), &probe->timepoint));
    }
    HALO_ASSERT_OK(
        submit(nullptr, {gate.get()}, {1}, {semaphore.get()}, {kCount}));
    std::vector<size_t> order(kCount);
    for (size_t i = 0; i < kCount; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random);
    // Once the GPU has signalled, the notification thread fires the
    // timepoints as soon as it wakes, while this thread cancels them.
    HALO_ASSERT_OK(halo_semaphore_signal(gate.get(), 1));
    HALO_ASSERT_OK(wait(semaphore.get(), kCount));
    std::vector<bool> cancelled(kCount);
    for (size_t i : order) {
      bool was_cancelled = false;
      HALO_ASSERT_OK(halo_semaphore_cancel_timepoint(
          semaphore.get(), &probes[i]->timepoint, &was_cancelled));
      cancelled[i] = was_cancelled;
      // A cancel that lost the race returns only after the callback ran.
      EXPECT_EQ(probes[i]->calls.load(std::memory_order_acquire),
                was_cancelled ? 0 : 1)
          << "value " << i + 1;
    }
    HALO_ASSERT_OK(
        halo_device_wait_idle(device(), deadline_in_ms(kGenerousMs)));
    int round_cancelled = 0;
    for (size_t i = 0; i < kCount; ++i) {
      EXPECT_EQ(probes[i]->calls.load(std::memory_order_acquire),
                cancelled[i] ? 0 : 1)
          << "value " << i + 1;
      EXPECT_EQ(probes[i]->failures.load(), 0);
      round_cancelled += cancelled[i] ? 1 : 0;
    }
    EXPECT_EQ(fired.load(), int{kCount} - round_cancelled);
    cancelled_total += round_cancelled;
    fired_total += fired.load();
  }
  // How the races fell varies from run to run; record it for the log.
  RecordProperty("cancelled", cancelled_total);
  RecordProperty("fired", fired_total);
}

}  // namespace
}  // namespace halo_vulkan_test
