// Objects of the raw side, each owned by a small class that aborts (with the
// failed call's name) when it cannot be made, and the calls every timed
// loop makes: submit, host signal and blocking wait.
#ifndef HALO_BENCH_VULKAN_RAW_OBJECTS_HPP_
#define HALO_BENCH_VULKAN_RAW_OBJECTS_HPP_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "raw_vulkan.hpp"

namespace halo::bench {

// A timeline semaphore.
class RawSemaphore {
 public:
  explicit RawSemaphore(uint64_t initial_value = 0);
  ~RawSemaphore();
  RawSemaphore(const RawSemaphore&) = delete;
  RawSemaphore& operator=(const RawSemaphore&) = delete;

  VkSemaphore get() const { return semaphore_; }

 private:
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
};

// How a raw baseline learns of each submission's end, if at all.
enum class Retiring {
  // Not at all: plain raw Vulkan.
  kNo,
  // A thread blocks on a completion timeline: native_vulkan_retiring.
  kWaiting,
  // A thread reads the completion timeline every kPollInterval while
  // anything is in flight, as the opencl plugin's worker does (NVIDIA's
  // OpenCL callbacks come late): native_vulkan_retiring_polling.
  kPolling,
};

// What raw Vulkan must add to learn of each submission's end as it comes,
// as halo's queues do to release what a submission holds (DESIGN.md §5): a
// completion timeline that every submission also signals (raw_submit's
// |retirer|), and a thread that waits on it, or polls it, and reads how far
// it got. Destroy it only with the queue idle (raw_finish_run): it ends its
// thread with a host signal.
class RawRetirer {
 public:
  explicit RawRetirer(Retiring how);
  ~RawRetirer();
  RawRetirer(const RawRetirer&) = delete;
  RawRetirer& operator=(const RawRetirer&) = delete;

  VkSemaphore semaphore() const { return completion_.get(); }
  // The value the next submission signals.
  uint64_t next_value();

  // Between two reads of a polling retirer: the opencl plugin's interval.
  static constexpr std::chrono::microseconds kPollInterval{4};

 private:
  void wait_for_each();
  void poll_each();

  const Retiring how_;
  RawSemaphore completion_;
  // Written by the submitting thread; a polling retirer sleeps on it while
  // nothing is in flight.
  std::atomic<uint64_t> submitted_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// A retirer of the kind asked for, or none: a benchmark's raw baselines in
// one body. Make it before PinTimedThread, whose core its thread would
// otherwise share.
inline std::unique_ptr<RawRetirer> retirer_if(Retiring how) {
  if (how == Retiring::kNo) return nullptr;
  return std::make_unique<RawRetirer>(how);
}

// A buffer of |size| bytes in device-local memory, chosen as the plugin
// chooses for HALO_MEMORY_TYPE_DEVICE_LOCAL: the allowed type with that
// property and the fewest others.
class RawBuffer {
 public:
  RawBuffer(uint64_t size, VkBufferUsageFlags usage);
  ~RawBuffer();
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;

  VkBuffer get() const { return buffer_; }

 private:
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

// A command pool with one primary command buffer, recording from
// construction until end(). It is submitted again only after the previous
// submission completed, so it needs no simultaneous-use flag.
class RawCommands {
 public:
  RawCommands();
  ~RawCommands();
  RawCommands(const RawCommands&) = delete;
  RawCommands& operator=(const RawCommands&) = delete;

  VkCommandBuffer get() const { return command_buffer_; }
  void end();

 private:
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
};

// A compute pipeline of entry point |entry| in SPIR-V |spirv| that takes no
// descriptor sets and no push constants.
class RawPipeline {
 public:
  RawPipeline(const std::vector<uint32_t>& spirv, const char* entry);
  ~RawPipeline();
  RawPipeline(const RawPipeline&) = delete;
  RawPipeline& operator=(const RawPipeline&) = delete;

  VkPipeline get() const { return pipeline_; }

 private:
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

// One vkQueueSubmit with one VkSubmitInfo: waits for |wait| to reach
// |wait_value| (none when VK_NULL_HANDLE) at every stage, as the plugin's
// waits do, runs |commands| (none when VK_NULL_HANDLE) and signals |signal|
// to |signal_value| (none when VK_NULL_HANDLE), and, with a |retirer|,
// its completion timeline to the next value too.
inline void raw_submit(const RawDevice& raw, VkSemaphore wait,
                       uint64_t wait_value, VkSemaphore signal,
                       uint64_t signal_value, VkCommandBuffer commands,
                       RawRetirer* retirer = nullptr) {
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSemaphore signals[2];
  uint64_t signal_values[2];
  uint32_t signal_count = 0;
  if (signal != VK_NULL_HANDLE) {
    signals[signal_count] = signal;
    signal_values[signal_count++] = signal_value;
  }
  if (retirer != nullptr) {
    signals[signal_count] = retirer->semaphore();
    signal_values[signal_count++] = retirer->next_value();
  }
  VkTimelineSemaphoreSubmitInfo timeline = {};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.waitSemaphoreValueCount = wait != VK_NULL_HANDLE ? 1 : 0;
  timeline.pWaitSemaphoreValues = &wait_value;
  timeline.signalSemaphoreValueCount = signal_count;
  timeline.pSignalSemaphoreValues = signal_values;
  VkSubmitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &timeline;
  info.waitSemaphoreCount = timeline.waitSemaphoreValueCount;
  info.pWaitSemaphores = &wait;
  info.pWaitDstStageMask = &stage;
  info.commandBufferCount = commands != VK_NULL_HANDLE ? 1 : 0;
  info.pCommandBuffers = &commands;
  info.signalSemaphoreCount = signal_count;
  info.pSignalSemaphores = signals;
  check_vk(raw.vk.vkQueueSubmit(raw.queue, 1, &info, VK_NULL_HANDLE),
           "vkQueueSubmit");
}

// vkSignalSemaphore: sets |semaphore| to |value| from the host.
inline void raw_signal(const RawDevice& raw, VkSemaphore semaphore,
                       uint64_t value) {
  VkSemaphoreSignalInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = semaphore;
  info.value = value;
  check_vk(raw.vk.vkSignalSemaphore(raw.device, &info), "vkSignalSemaphore");
}

// vkWaitSemaphores with no timeout: blocks until |semaphore| reaches
// |value|.
inline void raw_wait(const RawDevice& raw, VkSemaphore semaphore,
                     uint64_t value) {
  VkSemaphoreWaitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  check_vk(raw.vk.vkWaitSemaphores(raw.device, &info, UINT64_MAX),
           "vkWaitSemaphores");
}

// Ends a raw benchmark run, before its objects are destroyed: waits until
// the queue is idle, outside the timed loop. Vulkan allows destroying a
// semaphore once the host has seen the last signal of every submission
// that uses it, but Mesa 22.3's lavapipe may still be finishing the
// submission on its submit thread then: destroying the chain's semaphore at
// once left that thread blocked on a mutex no thread held, and the next
// run's first submission never completed (9 hangs in 25 runs of the chain
// and the dispatch; none in 25 with this wait).
inline void raw_finish_run(const RawDevice& raw) {
  check_vk(raw.vk.vkQueueWaitIdle(raw.queue), "vkQueueWaitIdle");
}

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_RAW_OBJECTS_HPP_
