// Retired semaphores: VkSemaphores kept past their last reference until the
// driver has provably let go of them.
//
// A driver may finish with a submission's waits only after its signals have
// become visible: Mesa's common queue code (lavapipe's, in Mesa 22.3)
// releases a batch's wait time points on its queue thread after it has
// installed the batch's signals. So the done signal that tells the
// notification thread a submission finished can show while the driver still
// holds the VkSemaphores that submission waited on, and destroying one in
// that window frees memory the queue thread is about to lock. A queue works
// through its batches in order: once a later submission's completion shows,
// the driver is done with the earlier one's waits, and an idle VkQueue
// proves the same for all of them.
//
// A semaphore whose last reference goes before a submission after its last
// native wait has completed is therefore not destroyed at once: the queue
// keeps it on an intrusive stack (it no longer holds its device) and
// destroys it when the notification thread sees a later completion, or in
// Queue::destroy after vkQueueWaitIdle. Submissions pay one store per
// native wait (Semaphore::last_native_wait); nothing is allocated.
#include "device.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::vk {

bool Queue::retire(Semaphore* semaphore) noexcept {
  const uint64_t last = semaphore->last_native_wait;
  if (last == 0 || completed_.load(std::memory_order_seq_cst) > last) {
    return false;
  }
  semaphore->retired = true;
  push_retired(semaphore);
  // The notification thread may have read a later completion, and taken
  // the stack, between the check above and the push: then nothing would
  // destroy the semaphore before the next completion. Wake it to look
  // again. (Both sides are sequentially consistent: either its take sees
  // the push, or this load sees its completion.)
  if (completed_.load(std::memory_order_seq_cst) > last) device_->wake.wake();
  return true;
}

void Queue::push_retired(Semaphore* semaphore) noexcept {
  Semaphore* head = retired_head_.load(std::memory_order_relaxed);
  do {
    semaphore->next_retired = head;
  } while (!retired_head_.compare_exchange_weak(
      head, semaphore, std::memory_order_seq_cst, std::memory_order_relaxed));
}

void Queue::destroy_retired(uint64_t completed) noexcept {
  if (retired_head_.load(std::memory_order_relaxed) == nullptr) return;
  Semaphore* head = retired_head_.exchange(nullptr, std::memory_order_seq_cst);
  while (head != nullptr) {
    Semaphore* next = head->next_retired;
    if (head->last_native_wait < completed) {
      sdk::Host host = head->host;
      host.destroy(head);
    } else {
      push_retired(head);
    }
    head = next;
  }
}

}  // namespace halo::vk
