// A device's wake semaphore: a timeline VkSemaphore that the plugin signals
// whenever something a blocked vkWaitSemaphores cannot see has changed (a
// semaphore failed, a submission became ready, a timepoint was registered).
// Every host wait of the device and its notification thread include it, so
// a vkWaitSemaphores never sleeps through a halo-level event.
//
// Protocol: a waiter reads current() first, then checks its condition, then
// waits for the semaphore to reach current() + 1. A waker changes the
// condition first, then calls wake(). Either the waiter sees the change, or
// the wake lands after its read and ends its wait.
#ifndef HALO_VULKAN_WAKE_HPP_
#define HALO_VULKAN_WAKE_HPP_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

class Wake {
 public:
  // Creates the semaphore and registers it with the exit guard. Returns a
  // status naming the failed call.
  halo_status_t create(sdk::Host host, const DeviceFunctions* vkd,
                       VkDevice device) noexcept;
  // Unregisters and destroys the semaphore; nobody may be waiting on it.
  void destroy() noexcept;

  // The number of wakes so far; the semaphore reaches it soon after.
  uint64_t current() const noexcept {
    return value_.load(std::memory_order_seq_cst);
  }
  // Signals the next value. Thread-safe; never blocks on the device.
  void wake() noexcept;

  VkSemaphore semaphore() const noexcept { return semaphore_; }

  // Links the wakes the exit guard signals at process exit (exit_guard.cpp).
  Wake* next_exit_wake = nullptr;

 private:
  sdk::Host host_;
  const DeviceFunctions* vkd_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
  // Serialises signals: Vulkan requires each to exceed the last.
  std::mutex mutex_;
  std::atomic<uint64_t> value_{0};
};

// Creates a timeline semaphore with |initial_value| on |device|.
halo_status_t create_timeline_semaphore(sdk::Host host,
                                        const DeviceFunctions& vkd,
                                        VkDevice device,
                                        uint64_t initial_value,
                                        VkSemaphore* out_semaphore) noexcept;

// How long a sliced wait (Adapter::sliced_waits) sleeps on one semaphore
// before its caller looks at everything again.
constexpr uint64_t kWaitSliceNs = 1000000;

// Waits until any of |count| (> 0) (semaphore, value) pairs is reached or
// |timeout| ns pass, like vkWaitSemaphores with the ANY bit. When |sliced|,
// it waits on the first pair alone, for at most kWaitSliceNs, and returns
// VK_SUCCESS when the slice ends before |timeout|: the caller looks at every
// pair again, as after any wake, so the others (the wake semaphore among
// them) are noticed within one slice. So put the pair most likely to end
// the wait first.
VkResult wait_any(const DeviceFunctions& vkd, VkDevice device, bool sliced,
                  uint32_t count, const VkSemaphore* semaphores,
                  const uint64_t* values, uint64_t timeout) noexcept;

// Converts an absolute halo deadline into vkWaitSemaphores' relative
// timeout in nanoseconds (0 for a deadline already past).
uint64_t timeout_until(sdk::Host host, halo_time_ns_t deadline) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_WAKE_HPP_
