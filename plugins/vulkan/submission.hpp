// One queue_execute on its way to the GPU: the SDK's submission plus the
// native arrays of its vkQueueSubmit and the queue's bookkeeping.
//
// A submission is handed to the GPU only once every wait is either reached
// or already has a pending signal from a submission of this device that the
// GPU has (deferred submission). Until then each such wait is host-side: a
// timepoint on its semaphore (any plugin's), counted by the SDK's
// readiness word. Its semaphores, command buffers and the device stay
// retained until the queue has seen the GPU finish it.
#ifndef HALO_VULKAN_SUBMISSION_HPP_
#define HALO_VULKAN_SUBMISSION_HPP_

#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/sdk/submission.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;

class Submission final : public sdk::Submission {
 public:
  // Where the native arrays sit in the one allocation.
  struct Extra {
    size_t vk_wait_semaphores = 0;
    size_t vk_wait_values = 0;
    size_t vk_wait_stages = 0;
    size_t vk_signal_semaphores = 0;
    size_t vk_signal_values = 0;
    size_t vk_command_buffers = 0;
  };
  static Extra plan_extra(sdk::AllocationPlan& plan,
                          const sdk::SubmissionLists& lists);

  // Allocates a submission of |info| (already checked, its command buffers
  // acquired) for |device|, in a block of |recycled| where one fits, and
  // retains everything it names. Throws std::bad_alloc.
  static Submission* create(Device* device, sdk::ReturnedAllocations* recycled,
                            const halo_queue_execute_info_t& info);

  // For the timepoint callback that makes a submission ready: starts it on
  // the device's queue.
  static void on_ready(sdk::Submission* submission) noexcept;
  // Registers a host-side wait's timepoint (sdk::Submission's
  // AcquireFunction). A wait on a semaphore of the submission's own device
  // that nothing outside the device advances (not shared) is released in
  // time without the notification thread watching its payload: by the
  // host signal or failure that reaches it, whose timepoints run on the
  // signalling thread, or, when this device's GPU is to reach it, by the
  // queue's reevaluation after that hand-off, which makes the wait native.
  // So its timepoint is not watched; every other wait's is.
  static halo_status_t acquire_wait(sdk::Submission* submission,
                                    halo_semaphore_t* semaphore,
                                    halo_timepoint_t* timepoint) noexcept;

  // Native arrays for vkQueueSubmit, sized at creation so that the hand-off
  // allocates nothing.
  VkSemaphore* vk_wait_semaphores;
  uint64_t* vk_wait_values;
  VkPipelineStageFlags* vk_wait_stages;
  // signal_count + 1: room for the queue's completion semaphore.
  VkSemaphore* vk_signal_semaphores;
  uint64_t* vk_signal_values;
  VkCommandBuffer* vk_command_buffers;

  // The queue's bookkeeping (guarded by the queue's locks).
  // The hand-off's number: the queue's hand-offs counted from 1.
  uint64_t number = 0;
  // The signal whose arrival shows the GPU finished the submission: one of
  // its own (Queue::hand_off says which) or the queue's completion
  // semaphore's.
  VkSemaphore done_semaphore = VK_NULL_HANDLE;
  uint64_t done_value = 0;
  bool deferred = false;
  Submission* previous_deferred = nullptr;
  Submission* next_deferred = nullptr;
  Submission* next_in_flight = nullptr;
  // Links finished submissions for the notification thread's release pass.
  Submission* next_finished = nullptr;

  // Use create; public for the SDK's create.
  Submission(const Init& init, const Extra& extra, Device* device) noexcept;

 private:
  Device* const device_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_SUBMISSION_HPP_
