// A queue left alone keeps no memory of its finished work (DESIGN.md §5,
// the SDK's queue core): plugins have the threads that submit next reuse
// or free what their completion threads finished (sdk::ReturnedAllocations,
// the opencl plugin's deferred event releases), and once the queue has had
// nothing to do for a while the queue's own thread frees it instead. So an
// application that submits a burst and then only waits, or sleeps, gets
// every submission's host memory back without another call.
//
// Each plugin's first device runs through a registry whose host allocator
// records the blocks the test thread allocates inside
// halo_device_queue_execute, and forgets each block when it is freed, on
// any thread. A burst of submissions, then a smaller one: the second reuses
// the first's blocks (sdk::ReturnedAllocations), and leaves some of them
// waiting for a submission that never comes. Every block either allocated
// must be freed once the work is done and retired (halo_device_wait_idle,
// which frees nothing a queue keeps), with the test making no further call
// into the queue.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stress_util.hpp"

namespace halo_stress {
namespace {

constexpr uint64_t kBurst = 64;
constexpr uint64_t kSecondBurst = kBurst / 2;
// A queue's lasting storage, grown as the bursts are made: a block or two.
// Finished submissions kept back are one block each, kBurst of them.
constexpr size_t kKeptForGood = 4;
// Generous: the queue's thread frees after about a millisecond's idle, and a
// sanitizer build on a loaded machine is slow; the test only fails past it.
constexpr auto kDeadline = std::chrono::seconds(60);

// Forwards to the system. While recording, a block the recording thread
// allocates is remembered until it is freed (on whatever thread).
class RecordingAllocator {
 public:
  RecordingAllocator() {
    allocator_.struct_size = sizeof(allocator_);
    allocator_.self = this;
    allocator_.allocate = &RecordingAllocator::allocate;
    allocator_.free = &RecordingAllocator::free;
  }
  const halo_allocator_t* get() const { return &allocator_; }

  // Records the calling thread's allocations from now on, forgetting older
  // ones still outstanding.
  void start_recording() {
    std::lock_guard<std::mutex> lock(mutex_);
    recording_thread_ = std::this_thread::get_id();
    outstanding_.clear();
    recorded_ = 0;
  }
  void stop_recording() {
    std::lock_guard<std::mutex> lock(mutex_);
    recording_thread_ = std::thread::id();
  }
  uint64_t recorded() {
    std::lock_guard<std::mutex> lock(mutex_);
    return recorded_;
  }
  // Waits until at most |limit| recorded blocks are left unfreed, or
  // kDeadline passes; returns the sizes of those left.
  std::vector<size_t> wait_until_at_most(size_t limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    limit_ = limit;
    freed_.wait_for(lock, kDeadline,
                    [&] { return outstanding_.size() <= limit_; });
    std::vector<size_t> sizes;
    for (const auto& [pointer, size] : outstanding_) sizes.push_back(size);
    return sizes;
  }

 private:
  static void* allocate(void* self, size_t size, size_t alignment) {
    void* pointer = nullptr;
    if (posix_memalign(&pointer, alignment, size == 0 ? 1 : size) != 0) {
      return nullptr;
    }
    auto* recorder = static_cast<RecordingAllocator*>(self);
    std::lock_guard<std::mutex> lock(recorder->mutex_);
    if (recorder->recording_thread_ == std::this_thread::get_id()) {
      recorder->outstanding_.emplace(pointer, size);
      ++recorder->recorded_;
    }
    return pointer;
  }
  static void free(void* self, void* pointer) {
    if (pointer == nullptr) return;
    auto* recorder = static_cast<RecordingAllocator*>(self);
    {
      std::lock_guard<std::mutex> lock(recorder->mutex_);
      if (recorder->outstanding_.erase(pointer) != 0 &&
          recorder->outstanding_.size() <= recorder->limit_) {
        recorder->freed_.notify_all();
      }
    }
    std::free(pointer);
  }

  halo_allocator_t allocator_ = {};
  std::mutex mutex_;
  std::condition_variable freed_;
  std::thread::id recording_thread_;
  std::map<void*, size_t> outstanding_;
  size_t limit_ = 0;
  uint64_t recorded_ = 0;
};

// Submits |count| barriers signalling |semaphore| from |gate| + 1 up, each
// waiting for the one before; the first waits for |gate|, which only
// finish_burst signals, so that no submission finishes (nor is reused or
// freed by the next submit) before the last is made.
void submit_burst(halo_device_t* device, halo_semaphore_t* semaphore,
                  uint64_t gate, uint64_t count) {
  for (uint64_t value = gate + 1; value <= gate + count; ++value) {
    STRESS_ASSERT_OK(
        execute(device, semaphore, value - 1, {semaphore}, {value}));
  }
}

// Opens the burst's gate, waits for its last signal, and for the queue to
// retire every submission (which frees nothing of what the queue kept).
void finish_burst(halo_device_t* device, halo_semaphore_t* semaphore,
                  uint64_t gate, uint64_t count) {
  const halo_time_ns_t deadline = halo_deadline_after_ns(60'000'000'000);
  STRESS_ASSERT_OK(halo_semaphore_signal(semaphore, gate));
  STRESS_ASSERT_OK(halo_semaphore_wait(semaphore, gate + count, deadline));
  STRESS_ASSERT_OK(halo_device_wait_idle(device, deadline));
}

TEST(IdleQueue, KeepsNoMemoryOfFinishedWork) {
  // Never destroyed: no plugin thread may outlive the allocator it calls.
  static RecordingAllocator& recorder = *new RecordingAllocator;
  halo_registry_t* registry = nullptr;
  STRESS_ASSERT_OK(create_build_tree_registry(&registry, recorder.get()));
  const std::vector<PluginDevice> devices =
      first_device_of_each_plugin(registry);
  ASSERT_FALSE(devices.empty());
  for (const PluginDevice& plugin : devices) {
    SCOPED_TRACE(plugin.plugin);
    halo_device_t* device = nullptr;
    STRESS_ASSERT_OK(halo_registry_create_device(
        registry, plugin.registry_index, nullptr, &device));
    halo_semaphore_t* semaphore = nullptr;
    STRESS_EXPECT_OK(
        halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, &semaphore));
    if (semaphore != nullptr) {
      recorder.start_recording();
      submit_burst(device, semaphore, 1, kBurst);
      finish_burst(device, semaphore, 1, kBurst);
      const uint64_t gate = 2 + kBurst;
      submit_burst(device, semaphore, gate, kSecondBurst);
      recorder.stop_recording();
      // One block a submission of the first burst, at least.
      EXPECT_GE(recorder.recorded(), kBurst);
      finish_burst(device, semaphore, gate, kSecondBurst);
      const std::vector<size_t> left =
          recorder.wait_until_at_most(kKeptForGood);
      std::string sizes;
      for (size_t size : left) sizes += " " + std::to_string(size);
      EXPECT_LE(left.size(), kKeptForGood)
          << "blocks allocated by the submissions still held after the "
             "queue went idle, of sizes"
          << sizes;
      halo_semaphore_release(semaphore);
    }
    halo_device_release(device);
  }
  halo_registry_release(registry);
}

}  // namespace
}  // namespace halo_stress
