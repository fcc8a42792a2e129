// The wake semaphore and the timeline semaphore helpers.
#include "wake.hpp"

#include "exit_guard.hpp"
#include "vk_status.hpp"

namespace halo::vk {

halo_status_t create_timeline_semaphore(sdk::Host host,
                                        const DeviceFunctions& vkd,
                                        VkDevice device,
                                        uint64_t initial_value,
                                        VkSemaphore* out_semaphore) noexcept {
  VkSemaphoreTypeCreateInfo type_info = {};
  type_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type_info.initialValue = initial_value;
  VkSemaphoreCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  create_info.pNext = &type_info;
  *out_semaphore = VK_NULL_HANDLE;
  VkResult result =
      vkd.vkCreateSemaphore(device, &create_info, nullptr, out_semaphore);
  if (result != VK_SUCCESS) *out_semaphore = VK_NULL_HANDLE;
  return vk_status(host, "vkCreateSemaphore", result);
}

VkResult wait_any(const DeviceFunctions& vkd, VkDevice device, bool sliced,
                  uint32_t count, const VkSemaphore* semaphores,
                  const uint64_t* values, uint64_t timeout) noexcept {
  bool slice_ends_early = false;
  if (sliced) {
    count = 1;
    if (timeout > kWaitSliceNs) {
      timeout = kWaitSliceNs;
      slice_ends_early = true;
    }
  }
  VkSemaphoreWaitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.flags = VK_SEMAPHORE_WAIT_ANY_BIT;
  info.semaphoreCount = count;
  info.pSemaphores = semaphores;
  info.pValues = values;
  VkResult result = vkd.vkWaitSemaphores(device, &info, timeout);
  return result == VK_TIMEOUT && slice_ends_early ? VK_SUCCESS : result;
}

uint64_t timeout_until(sdk::Host host, halo_time_ns_t deadline) noexcept {
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE) return UINT64_MAX;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) return 0;
  halo_time_ns_t now = host.now();
  return deadline <= now ? 0 : static_cast<uint64_t>(deadline - now);
}

halo_status_t Wake::create(sdk::Host host, const DeviceFunctions* vkd,
                           VkDevice device) noexcept {
  host_ = host;
  vkd_ = vkd;
  device_ = device;
  HALO_SDK_RETURN_IF_ERROR(
      create_timeline_semaphore(host, *vkd, device, 0, &semaphore_));
  register_exit_wake(this);
  return HALO_OK;
}

void Wake::destroy() noexcept {
  if (semaphore_ != VK_NULL_HANDLE) {
    unregister_exit_wake(this);
    vkd_->vkDestroySemaphore(device_, semaphore_, nullptr);
    semaphore_ = VK_NULL_HANDLE;
  }
}

void Wake::wake() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t next = value_.load(std::memory_order_relaxed) + 1;
  value_.store(next, std::memory_order_seq_cst);
  VkSemaphoreSignalInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = semaphore_;
  info.value = next;
  VkResult result = vkd_->vkSignalSemaphore(device_, &info);
  if (result != VK_SUCCESS) {
    host_.log(HALO_LOG_LEVEL_ERROR, "wake: vkSignalSemaphore failed: %s (%d)",
              result_name(result), static_cast<int>(result));
  }
}

}  // namespace halo::vk
