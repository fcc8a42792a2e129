// A Vulkan layer for the tests: it counts the batches submitted with
// vkQueueSubmit and the semaphores they signal, and it can hold a queue's
// work in flight for as long as a test needs. While its gate is closed, the
// next batch submitted also waits for a timeline semaphore of the layer's,
// which opening the gate signals from the host; the batch, and all the GPU
// orders after it, stays on the GPU until then, on the real driver and
// without a timing assumption. A test reaches the layer through the
// functions at the end, found by opening the layer's library again (the
// dynamic linker hands back the copy the Vulkan loader opened).
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "test_layer.hpp"

namespace halo_test_layer {
namespace {

// Guards everything below, and every change of the counts: a batch is
// counted and gated (or not) at once, so a test that reads a count and
// then closes the gate knows that every batch it counted went ungated.
std::mutex g_mutex;
std::atomic<uint64_t> g_signals{0};
std::atomic<uint64_t> g_batches{0};
std::map<VkQueue, VkDevice> g_queue_devices;
bool g_closing = false;
// The gate: a timeline semaphore of |g_gate_device| at 0 until it opens.
VkDevice g_gate_device = VK_NULL_HANDLE;
VkSemaphore g_gate = VK_NULL_HANDLE;
bool g_holding = false;

VKAPI_ATTR void VKAPI_CALL get_device_queue(VkDevice device, uint32_t family,
                                            uint32_t index,
                                            VkQueue* out_queue) {
  auto next = next_device<PFN_vkGetDeviceQueue>(device, "vkGetDeviceQueue");
  if (next == nullptr) return;
  next(device, family, index, out_queue);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_queue_devices[*out_queue] = device;
}

// Counts the batches about to go to |queue| and returns the gate semaphore
// for the first, creating it if the gate was just closed and the batch is
// one the gate can hold (|gateable|); NULL when the gate is open.
VkSemaphore count_and_take_gate(VkQueue queue, uint32_t count,
                                const VkSubmitInfo* submits, bool gateable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_batches.fetch_add(count, std::memory_order_relaxed);
  for (uint32_t i = 0; i < count; ++i) {
    g_signals.fetch_add(submits[i].signalSemaphoreCount,
                        std::memory_order_relaxed);
  }
  if (!gateable || !g_closing) return VK_NULL_HANDLE;
  auto found = g_queue_devices.find(queue);
  if (found == g_queue_devices.end() || g_gate != VK_NULL_HANDLE) {
    return VK_NULL_HANDLE;
  }
  VkDevice device = found->second;
  auto create = next_device<PFN_vkCreateSemaphore>(device, "vkCreateSemaphore");
  if (create == nullptr) return VK_NULL_HANDLE;
  VkSemaphoreTypeCreateInfo type = {};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  if (create(device, &info, nullptr, &g_gate) != VK_SUCCESS) {
    g_gate = VK_NULL_HANDLE;
    return VK_NULL_HANDLE;
  }
  g_gate_device = device;
  g_closing = false;
  g_holding = true;
  return g_gate;
}

// Finds the batch's timeline values: the plugin's batches carry them first
// in the chain.
const VkTimelineSemaphoreSubmitInfo* timeline_of(const VkSubmitInfo& submit) {
  auto* first = static_cast<const VkBaseInStructure*>(submit.pNext);
  if (first == nullptr ||
      first->sType != VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO) {
    return nullptr;
  }
  return reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(first);
}

VKAPI_ATTR VkResult VKAPI_CALL queue_submit(VkQueue queue, uint32_t count,
                                            const VkSubmitInfo* submits,
                                            VkFence fence) {
  auto next = next_device<PFN_vkQueueSubmit>(queue, "vkQueueSubmit");
  if (next == nullptr) return VK_ERROR_INITIALIZATION_FAILED;
  const VkTimelineSemaphoreSubmitInfo* timeline =
      count > 0 ? timeline_of(submits[0]) : nullptr;
  VkSemaphore gate =
      count_and_take_gate(queue, count, submits, timeline != nullptr);
  if (gate == VK_NULL_HANDLE) return next(queue, count, submits, fence);
  // The first batch again, with one more wait: the gate at 1.
  const VkSubmitInfo& first = submits[0];
  std::vector<VkSemaphore> semaphores(
      first.pWaitSemaphores, first.pWaitSemaphores + first.waitSemaphoreCount);
  std::vector<VkPipelineStageFlags> stages(
      first.pWaitDstStageMask,
      first.pWaitDstStageMask + first.waitSemaphoreCount);
  std::vector<uint64_t> values(
      timeline->pWaitSemaphoreValues,
      timeline->pWaitSemaphoreValues + timeline->waitSemaphoreValueCount);
  values.resize(first.waitSemaphoreCount);
  semaphores.push_back(gate);
  stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  values.push_back(1);
  VkTimelineSemaphoreSubmitInfo gated_timeline = *timeline;
  gated_timeline.waitSemaphoreValueCount = static_cast<uint32_t>(values.size());
  gated_timeline.pWaitSemaphoreValues = values.data();
  std::vector<VkSubmitInfo> batches(submits, submits + count);
  batches[0].pNext = &gated_timeline;
  batches[0].waitSemaphoreCount = static_cast<uint32_t>(semaphores.size());
  batches[0].pWaitSemaphores = semaphores.data();
  batches[0].pWaitDstStageMask = stages.data();
  return next(queue, count, batches.data(), fence);
}

}  // namespace

const Override kInstanceOverrides[] = {{nullptr, nullptr}};
const Override kDeviceOverrides[] = {
    {"vkGetDeviceQueue",
     reinterpret_cast<PFN_vkVoidFunction>(&get_device_queue)},
    {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(&queue_submit)},
    {"vkCreateSemaphore", nullptr},
    {"vkSignalSemaphore", nullptr},
    {"vkDeviceWaitIdle", nullptr},
    {"vkDestroySemaphore", nullptr},
    {nullptr, nullptr},
};

}  // namespace halo_test_layer

using halo_test_layer::g_mutex;

// Semaphore signals in the batches submitted so far, process-wide.
extern "C" __attribute__((visibility("default"))) uint64_t
halo_test_gate_signals() {
  return halo_test_layer::g_signals.load(std::memory_order_relaxed);
}

// Batches submitted so far, process-wide.
extern "C" __attribute__((visibility("default"))) uint64_t
halo_test_gate_batches() {
  return halo_test_layer::g_batches.load(std::memory_order_relaxed);
}

// Holds the next batch submitted (on any queue) until the gate opens.
extern "C" __attribute__((visibility("default"))) void halo_test_gate_close() {
  std::lock_guard<std::mutex> lock(g_mutex);
  halo_test_layer::g_closing = true;
}

// Whether a batch is held at the gate.
extern "C" __attribute__((visibility("default"))) bool
halo_test_gate_holding() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return halo_test_layer::g_holding;
}

// Lets the held batch go. False when none was held or the signal failed.
extern "C" __attribute__((visibility("default"))) bool halo_test_gate_open() {
  using namespace halo_test_layer;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_closing = false;
  if (!g_holding) return false;
  g_holding = false;
  auto signal =
      next_device<PFN_vkSignalSemaphore>(g_gate_device, "vkSignalSemaphore");
  VkSemaphoreSignalInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = g_gate;
  info.value = 1;
  return signal != nullptr && signal(g_gate_device, &info) == VK_SUCCESS;
}

// Opens the gate for good and destroys its semaphore once the device is
// idle. Call when nothing else submits to the device.
extern "C" __attribute__((visibility("default"))) void halo_test_gate_remove() {
  using namespace halo_test_layer;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_closing = false;
  if (g_gate == VK_NULL_HANDLE) return;
  auto idle =
      next_device<PFN_vkDeviceWaitIdle>(g_gate_device, "vkDeviceWaitIdle");
  auto destroy =
      next_device<PFN_vkDestroySemaphore>(g_gate_device, "vkDestroySemaphore");
  if (idle != nullptr) idle(g_gate_device);
  if (destroy != nullptr) destroy(g_gate_device, g_gate, nullptr);
  g_gate = VK_NULL_HANDLE;
  g_gate_device = VK_NULL_HANDLE;
}
