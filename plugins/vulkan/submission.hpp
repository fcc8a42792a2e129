// One queue_execute on its way to the GPU.
//
// A submission is handed to the GPU only once every wait is either reached
// or already has a pending signal from a submission of this device that the
// GPU has (deferred submission). Until then each unsatisfied wait holds a
// timepoint on its semaphore (any plugin's). The submission counts its
// unsatisfied waits in one atomic word, as sdk::PendingSubmission does, so
// that it becomes ready exactly once: when the last wait settles, or at the
// first failure. Its semaphores, command buffers and the device stay
// retained until the queue has seen the GPU finish it.
#ifndef HALO_VULKAN_SUBMISSION_HPP_
#define HALO_VULKAN_SUBMISSION_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

class CommandBuffer;
class Queue;
struct Device;

class Submission {
 public:
  // Where a wait stands. Only kRegistered waits may be cancelled by the
  // queue (their registration has finished).
  enum WaitState : uint32_t {
    kNative = 0,       // Satisfied on the GPU: waited on natively.
    kRegistering = 1,  // A timepoint is being registered.
    kRegistered = 2,   // A timepoint is registered and has not run.
    kSettled = 3,      // The timepoint ran (reached or failed).
  };

  struct Wait {
    Submission* owner = nullptr;
    halo_semaphore_t* semaphore = nullptr;  // Retained.
    uint64_t value = 0;
    // A semaphore of this device: the GPU waits on it natively.
    bool own = false;
    std::atomic<uint32_t> state{kNative};
    // Becomes 1 as the last act of the timepoint callback (or when no
    // callback will run), so that cleanup cancels only the others.
    std::atomic<uint32_t> done{1};
    halo_timepoint_t timepoint = {};
  };

  struct Signal {
    halo_semaphore_t* semaphore = nullptr;  // Retained.
    uint64_t value = 0;
    bool own = false;
    // The GPU signals it (decided at hand-off); otherwise the host signals
    // it once the GPU finished.
    bool native = false;
  };

  // Allocates a submission of |info| (already checked) for |device| in one
  // host allocation and retains everything it names. |command_buffers| are
  // the info's command buffers, already acquired for submission. Throws
  // std::bad_alloc.
  static Submission* create(Device* device,
                            const halo_queue_execute_info_t& info,
                            CommandBuffer* const* command_buffers);
  // Releases what is still held and frees the submission. Accepts NULL.
  static void destroy(Submission* submission) noexcept;

  // Registers a timepoint for every wait not marked kNative. While this
  // runs nothing can make the submission ready; returns true when it is
  // ready at the end (the caller then owns what happens next).
  bool register_waits() noexcept;
  // After ready: cancels the timepoints that have not run, waits for
  // callbacks still running and marks every wait done. Never from inside a
  // timepoint callback.
  void finish_waits() noexcept;
  // Converts a registered wait to a native one when its timepoint can still
  // be cancelled (the GPU will reach its value). Returns true when that made
  // the submission ready.
  bool convert_to_native(Wait* wait) noexcept;

  // The first failure (owned by the submission), or NULL.
  halo_status_t failure() const noexcept {
    return failure_.load(std::memory_order_acquire);
  }
  // Keeps |status| as the failure unless one is kept already (then frees
  // it). Takes ownership.
  void record_failure(halo_status_t status) noexcept;

  // Fails every signal semaphore with a copy of |status| (borrowed).
  void fail_signals(halo_status_t status) noexcept;
  // Finishes the waits, then releases the semaphores and command buffers
  // (not the device).
  void release_resources() noexcept;

  Device* device() const noexcept { return device_; }
  sdk::Host host() const noexcept { return host_; }

  size_t wait_count = 0;
  Wait* waits = nullptr;
  size_t signal_count = 0;
  Signal* signals = nullptr;
  size_t command_buffer_count = 0;
  CommandBuffer** command_buffers = nullptr;
  // Native arrays for vkQueueSubmit, sized at creation so that the hand-off
  // allocates nothing.
  VkSemaphore* vk_wait_semaphores = nullptr;
  uint64_t* vk_wait_values = nullptr;
  VkPipelineStageFlags* vk_wait_stages = nullptr;
  VkSemaphore* vk_signal_semaphores = nullptr;  // signal_count + 1
  uint64_t* vk_signal_values = nullptr;         // signal_count + 1
  VkCommandBuffer* vk_command_buffers = nullptr;

  // The queue's bookkeeping (guarded by the queue's locks).
  uint64_t sequence = 0;
  uint64_t completion_value = 0;
  bool deferred = false;
  Submission* previous_deferred = nullptr;
  Submission* next_deferred = nullptr;
  Submission* next_ready = nullptr;
  Submission* next_in_flight = nullptr;
  Submission* previous_tracked = nullptr;
  Submission* next_tracked = nullptr;
  // Links finished submissions for the notification thread's release pass.
  Submission* next_finished = nullptr;

  // Public for the host allocator; use create.
  Submission(Device* device, void* allocation) noexcept;
  ~Submission();

 private:
  static void on_timepoint(void* user_data, halo_timepoint_t* timepoint,
                           halo_status_t status) noexcept;
  // Applies one event to state_; true when this event made it ready.
  bool settle(uint64_t remove, uint64_t add) noexcept;
  void fill(const halo_queue_execute_info_t& info,
            CommandBuffer* const* command_buffers) noexcept;

  sdk::Host host_;
  Device* device_;
  void* allocation_;
  // Bit 0 FAILED, bit 1 REGISTERING, bits 2+ the waits not yet settled.
  std::atomic<uint64_t> state_{2};
  std::atomic<halo_status_t> failure_{nullptr};
  bool resources_held_ = true;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_SUBMISSION_HPP_
