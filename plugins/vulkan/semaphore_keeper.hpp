// What a vulkan semaphore asks of its device's queue, and nothing more: the
// queue implements it and registers itself on the device, so semaphores
// never see the queue.
#ifndef HALO_VULKAN_SEMAPHORE_KEEPER_HPP_
#define HALO_VULKAN_SEMAPHORE_KEEPER_HPP_

namespace halo::vk {

struct Semaphore;

class SemaphoreKeeper {
 public:
  // Makes the notification thread watch |semaphore| (of this device) while
  // it has pending timepoints. Thread-safe.
  virtual void watch(Semaphore* semaphore) noexcept = 0;
  // Called as the last reference to |semaphore| goes. Returns true when the
  // keeper takes the semaphore over because the driver may still hold its
  // VkSemaphore; the caller must then drop only the semaphore's device
  // reference. Allocates nothing. Thread-safe.
  virtual bool retire(Semaphore* semaphore) noexcept = 0;

 protected:
  ~SemaphoreKeeper() = default;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_SEMAPHORE_KEEPER_HPP_
