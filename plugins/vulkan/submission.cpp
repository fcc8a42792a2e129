#include "submission.hpp"

#include "command_buffer.hpp"
#include "device.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::vk {

Submission::Extra Submission::plan_extra(sdk::AllocationPlan& plan,
                                         const sdk::SubmissionLists& lists) {
  const size_t waits = lists.waits.count;
  const size_t signals = lists.signals.count;
  Extra extra;
  extra.vk_wait_semaphores = plan.reserve<VkSemaphore>(waits);
  extra.vk_wait_values = plan.reserve<uint64_t>(waits);
  extra.vk_wait_stages = plan.reserve<VkPipelineStageFlags>(waits);
  // One more signal: the queue's completion semaphore.
  extra.vk_signal_semaphores = plan.reserve<VkSemaphore>(signals + 1);
  extra.vk_signal_values = plan.reserve<uint64_t>(signals + 1);
  extra.vk_command_buffers =
      plan.reserve<VkCommandBuffer>(lists.command_buffer_count);
  return extra;
}

Submission* Submission::create(Device* device,
                               sdk::ReturnedAllocations* recycled,
                               const halo_queue_execute_info_t& info) {
  return sdk::Submission::create<Submission>(
      device->host, recycled, device->handle(), sdk::SubmissionLists::of(info),
      device);
}

Submission::Submission(const Init& init, const Extra& extra,
                       Device* device) noexcept
    : sdk::Submission(init),
      vk_wait_semaphores(init.at<VkSemaphore>(extra.vk_wait_semaphores)),
      vk_wait_values(init.at<uint64_t>(extra.vk_wait_values)),
      vk_wait_stages(init.at<VkPipelineStageFlags>(extra.vk_wait_stages)),
      vk_signal_semaphores(init.at<VkSemaphore>(extra.vk_signal_semaphores)),
      vk_signal_values(init.at<uint64_t>(extra.vk_signal_values)),
      vk_command_buffers(init.at<VkCommandBuffer>(extra.vk_command_buffers)),
      device_(device) {
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    vk_command_buffers[i] =
        CommandBuffer::from(command_buffer(i))->vk_command_buffer();
  }
}

void Submission::on_ready(sdk::Submission* submission) noexcept {
  auto* own = static_cast<Submission*>(submission);
  own->device_->queue->start_ready(own);
}

halo_status_t Submission::acquire_wait(sdk::Submission* submission,
                                       halo_semaphore_t* semaphore,
                                       halo_timepoint_t* timepoint) noexcept {
  auto* own = static_cast<Submission*>(submission);
  if (own->device_->owns(semaphore)) {
    Semaphore* own_semaphore = Semaphore::cast(semaphore);
    if (!own_semaphore->shared()) {
      return own_semaphore->acquire_unwatched_timepoint(timepoint);
    }
  }
  return sdk::semaphore_vtable(semaphore)->acquire_timepoint(semaphore,
                                                             timepoint);
}

}  // namespace halo::vk
