// The queue: creation, teardown and queue_execute's checks; the rest of it
// lives in hand_off.cpp, completion.cpp, notification_thread.cpp,
// watched_semaphores.cpp and retirement.cpp.
#include "queue.hpp"

#include "command_buffer.hpp"
#include "device.hpp"
#include "exit_guard.hpp"
#include "semaphore.hpp"
#include "submission.hpp"
#include "vk_status.hpp"
#include "wake.hpp"

namespace halo::vk {

using ull = unsigned long long;

namespace {

constexpr char kExecute[] = "halo_device_queue_execute";

}  // namespace

Queue::Queue(Device* device) noexcept
    : device_(device),
      host_(device->host),
      watched_(sdk::HostAllocator<Semaphore*>(device->host)),
      watch_snapshot_(sdk::HostAllocator<Semaphore*>(device->host)),
      wait_semaphores_(sdk::HostAllocator<VkSemaphore>(device->host)),
      wait_values_(sdk::HostAllocator<uint64_t>(device->host)),
      returned_allocations_(device->host) {}

Queue::~Queue() {
  if (completion_ != VK_NULL_HANDLE) {
    device_->vkd.vkDestroySemaphore(device_->device, completion_, nullptr);
  }
}

Queue* Queue::create(Device* device, halo_status_t* out_status) {
  *out_status = HALO_OK;
  Queue* queue = device->host.make<Queue>(device);
  *out_status = create_timeline_semaphore(
      device->host, device->vkd, device->device, 0, &queue->completion_);
  if (*out_status != HALO_OK) {
    device->host.destroy(queue);
    return nullptr;
  }
  try {
    queue->thread_.start("halo-vk-notify", [queue] { queue->run(); });
  } catch (...) {
    device->host.destroy(queue);
    throw;
  }
  device->semaphore_keeper = queue;
  return queue;
}

void Queue::destroy(Queue* queue) noexcept {
  if (queue == nullptr) return;
  queue->stopping_.store(true, std::memory_order_seq_cst);
  queue->device_->wake.wake();
  unpark_exit_parked();
  // On the notification thread itself (it dropped the device's last
  // reference), this returns at once, and its loop returns touching nothing
  // of ours (plugin_threads.hpp).
  queue->thread_.await_exits();
  // The driver may still be letting go of the last submissions' waits
  // (retirement.cpp): only an idle VkQueue proves it has, and then the
  // semaphores kept for it may go.
  Device* device = queue->device_;
  device->vkd.vkQueueWaitIdle(device->vk_queue);
  queue->destroy_retired(UINT64_MAX);
  sdk::Host host = queue->host_;
  host.destroy(queue);
}

halo_status_t Queue::check_values(
    const halo_queue_execute_info_t& info) noexcept {
  const uint64_t limit =
      device_->adapter->capabilities.max_semaphore_value_difference;
  auto check = [&](halo_semaphore_t* handle, uint64_t value, const char* list,
                   size_t index) -> halo_status_t {
    if (!device_->owns(handle)) return HALO_OK;
    Semaphore* semaphore = Semaphore::cast(handle);
    // The shadow trails the native payload, so a value within the limit of
    // the shadow is within it of the payload: no payload read, which a
    // submission would otherwise pay per wait and per signal (the limit is
    // at least 2^31 - 1 in Vulkan, so only far jumps read).
    const uint64_t shadow = semaphore->shadow.payload();
    if (value <= shadow || value - shadow <= limit) return HALO_OK;
    uint64_t native = 0;
    HALO_SDK_RETURN_IF_ERROR(semaphore->native_value(&native));
    if (value <= native || value - native <= limit) return HALO_OK;
    return host_.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: info->%s_values[%zu] %llu is more than the device's "
        "max_semaphore_value_difference %llu above the payload %llu",
        kExecute, list, index, static_cast<ull>(value), static_cast<ull>(limit),
        static_cast<ull>(native));
  };
  for (size_t i = 0; i < info.wait_count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(
        check(info.wait_semaphores[i], info.wait_values[i], "wait", i));
  }
  for (size_t i = 0; i < info.signal_count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(
        check(info.signal_semaphores[i], info.signal_values[i], "signal", i));
  }
  return HALO_OK;
}

halo_status_t Queue::acquire_command_buffers(
    const halo_queue_execute_info_t& info) noexcept {
  for (size_t i = 0; i < info.command_buffer_count; ++i) {
    CommandBuffer* buffer = CommandBuffer::from(info.command_buffers[i]);
    if (buffer == nullptr || buffer->device() != device_) {
      release_unsubmitted(info, i);
      return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                               "%s: info->command_buffers[%zu] is not a "
                               "command buffer of this device",
                               kExecute, i);
    }
    halo_status_t status = buffer->acquire_for_submit(i);
    if (status != HALO_OK) {
      release_unsubmitted(info, i);
      return status;
    }
  }
  return HALO_OK;
}

void Queue::release_unsubmitted(const halo_queue_execute_info_t& info,
                                size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    CommandBuffer::from(info.command_buffers[i])->release_unsubmitted();
  }
}

halo_status_t Queue::execute(const halo_queue_execute_info_t* info) noexcept {
  HALO_SDK_RETURN_IF_ERROR(sdk::check_single_queue_affinity(host_, *info));
  HALO_SDK_RETURN_IF_ERROR(check_values(*info));
  HALO_SDK_RETURN_IF_ERROR(acquire_command_buffers(*info));
  Submission* submission = nullptr;
  halo_status_t status = sdk::guard(host_, [&] {
    submission = Submission::create(device_, &returned_allocations_, *info);
  });
  if (status != HALO_OK) {
    release_unsubmitted(*info, info->command_buffer_count);
    return status;
  }
  in_flight_.track(submission);
  const uint64_t hand_offs = classify(submission);
  if (submission->register_waits(&Submission::on_ready,
                                 &Submission::acquire_wait)) {
    process_ready(submission);
  } else if (handed_off_since(hand_offs)) {
    // A hand-off between the classification and the registration may have
    // made a wait reachable on the GPU, and the reevaluation it asked for
    // may have passed over that wait, not yet registered. Any later
    // hand-off's reevaluation sees it registered. (The submission itself
    // may be gone by now: a callback may have made it ready.)
    reevaluate_.store(true, std::memory_order_release);
    device_->wake.wake();
  }
  return HALO_OK;
}

}  // namespace halo::vk
