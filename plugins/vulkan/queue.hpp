// The device's queue: deferred submission onto one VkQueue, completion
// tracking, and the notification thread that drives both and fires the
// timepoints of the device's semaphores.
//
// Submissions (see submission.hpp) are classified under the scheduling lock:
// a wait on a semaphore of this device whose value the GPU will reach by
// itself is waited on natively; every other wait gets a timepoint. A ready
// submission is handed to the GPU (vkQueueSubmit with
// VkTimelineSemaphoreSubmitInfo) by whichever thread made it ready outside
// a timepoint callback: the submitting thread, or the notification thread.
// Each hand-off also names the signal whose arrival shows the GPU finished
// it: one of the submission's own, or one more value of the queue's
// completion semaphore (hand_off says when). The notification thread waits
// for them to finish submissions in order: host signals of foreign
// semaphores, failure propagation, releasing what the submission retained.
//
// The notification thread sleeps in one vkWaitSemaphores(ANY) over the wake
// semaphore, the completion semaphore and every semaphore of the device with
// pending timepoints that need watching (at payload + 1: not those of this
// queue's own deferred waits on its unshared semaphores, which host
// signals and the queue's hand-offs release; Submission::acquire_wait),
// and on each wake: hands ready
// submissions to the GPU, re-examines deferred ones (a hand-off may have
// made their waits reachable on the GPU), finishes completed ones, and
// brings the watched semaphores' shadows up to date, which runs their
// timepoint callbacks. On a GPU it polls before it sleeps, while work
// flows (poll).
#ifndef HALO_VULKAN_QUEUE_HPP_
#define HALO_VULKAN_QUEUE_HPP_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "halo/device.h"
#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/returned_allocations.hpp"
#include "halo/sdk/plugin_threads.hpp"
#include "halo/sdk/spin.hpp"
#include "semaphore_keeper.hpp"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;
struct Semaphore;
class Submission;

class Queue final : public SemaphoreKeeper {
 public:
  // Creates the completion semaphore and starts the notification thread.
  // Throws std::bad_alloc or std::system_error; returns a status for a
  // failed Vulkan call in |*out_status| (and NULL).
  static Queue* create(Device* device, halo_status_t* out_status);
  // Stops the thread (waiting for it to end, unless called on it) and
  // frees the queue. Nothing may be submitted or watched any more.
  static void destroy(Queue* queue) noexcept;

  // queue_execute: never blocks on the device. Thread-safe.
  halo_status_t execute(const halo_queue_execute_info_t* info) noexcept;
  // Blocks until every submission made before the call has finished (OK)
  // or |deadline| passes (DEADLINE_EXCEEDED). Thread-safe.
  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept {
    return in_flight_.wait_idle(host_, deadline);
  }

  // SemaphoreKeeper.
  void watch(Semaphore* semaphore) noexcept override;
  bool retire(Semaphore* semaphore) noexcept override;
  // Starts a submission made ready by a timepoint callback: hands it to the
  // GPU on the calling thread when it can, else to the notification thread
  // (enqueue_ready). Never blocks on the GPU. Thread-safe.
  void start_ready(Submission* submission) noexcept;
  // Hands a ready submission to the notification thread. Short, never
  // blocks. Thread-safe.
  void enqueue_ready(Submission* submission) noexcept;

  // Public for the host allocator; use create.
  explicit Queue(Device* device) noexcept;
  ~Queue();

 private:
  // queue.cpp: queue_execute's checks.
  halo_status_t check_values(const halo_queue_execute_info_t& info) noexcept;
  // Checks and acquires every command buffer of |info|, or none.
  halo_status_t acquire_command_buffers(
      const halo_queue_execute_info_t& info) noexcept;
  // Gives back the first |count| acquisitions of a submit that failed.
  void release_unsubmitted(const halo_queue_execute_info_t& info,
                           size_t count) noexcept;

  // hand_off.cpp: the way to the GPU.
  // Sorts |submission|'s waits into native and host-side ones, listing it
  // as deferred when it has any of the latter. Returns the number of
  // hand-offs made so far (see handed_off_since).
  uint64_t classify(Submission* submission) noexcept;
  // Whether any submission was handed to the GPU since classify returned
  // |hand_offs|.
  bool handed_off_since(uint64_t hand_offs) noexcept;
  void process_ready(Submission* submission) noexcept;
  // With schedule_mutex_ held: takes |submission| off the deferred list and
  // hands it to the GPU. False when it failed (a wait, or the hand-off,
  // whose status it records): the caller then fails its signals.
  bool try_hand_off(Submission* submission) noexcept;
  halo_status_t hand_off(Submission* submission) noexcept;
  void unlink_deferred(Submission* submission) noexcept;
  void drain_ready() noexcept;
  void reevaluate() noexcept;

  // completion.cpp: what the GPU finished.
  void collect_completed() noexcept;
  void complete(Submission* submission) noexcept;
  void finish(Submission* submission) noexcept;
  bool release_finished() noexcept;

  // watched_semaphores.cpp.
  void refresh_watched() noexcept;

  // retirement.cpp: the stack of retired semaphores. destroy_retired
  // destroys those whose last native wait is below |completed| (all of
  // them for UINT64_MAX); only the notification thread calls it, or
  // destroy once that thread has stopped.
  void push_retired(Semaphore* semaphore) noexcept;
  void destroy_retired(uint64_t completed) noexcept;

  // notification_thread.cpp.
  void run() noexcept;
  // One pass of the loop; false when the thread should end.
  bool iterate() noexcept;
  bool iterate_in_driver() noexcept;
  // With Adapter::polls_completion: polls until the oldest submission in
  // flight ends (with none in flight, until the next hand-off) or a wake
  // comes, every kPollInterval for up to kPollPatience. True when one of
  // them came, and the loop goes round again; false when the thread should
  // sleep instead. Semaphores watched for other reasons change unseen by
  // the poll, so with any watched the thread sleeps.
  bool poll(uint64_t wake_value) noexcept;
  // Between two reads of the oldest submission's signal.
  static constexpr std::chrono::microseconds kPollInterval =
      sdk::kDriverPollInterval;
  // How long the thread polls with nothing coming before it sleeps: longer
  // than NVIDIA's shortest round trips and an application's pause between
  // them, so that a stream of them never lets it sleep (bench/README.md).
  static constexpr std::chrono::microseconds kPollPatience{200};
  void sleep(uint64_t wake_value) noexcept;
  void sleep_sliced(uint64_t wake_value) noexcept;
  // With schedule_mutex_ held: the completion semaphore's value to sleep
  // until, which shows the oldest submission in flight finished (the next
  // hand-off's, with none in flight). Hands the GPU a probe, an empty
  // batch that signals only the completion semaphore, when no batch from
  // the oldest submission on does. 0 when the probe failed.
  uint64_t completion_to_await() noexcept;
  // How long the thread sleeps idle before it frees the memory given back
  // itself: as long as the other plugins' completion workers wait.
  static constexpr uint64_t kIdleDelayNs =
      std::chrono::nanoseconds(sdk::CompletionWorker::kIdleDelay).count();
  // With schedule_mutex_ held: whether nothing is in flight and memory
  // given back waits, to be freed if the sleep ends with no wake.
  bool idle_with_memory_given_back() const noexcept;
  // vkWaitSemaphores(ANY) over |count| pairs; logs a failure.
  VkResult sleep_on(uint32_t count, const VkSemaphore* semaphores,
                    const uint64_t* values, uint64_t timeout) noexcept;

  Device* const device_;
  sdk::Host host_;
  // Signalled, one value up each time, by the hand-offs whose own signals
  // do not show their end (see hand_off).
  VkSemaphore completion_ = VK_NULL_HANDLE;

  // The scheduling lock: classification, the deferred list, hand-offs (so
  // vkQueueSubmit calls, hand-off numbers and completion values are in one
  // order) and the in-flight list. Never held while a semaphore callback
  // may run.
  std::mutex schedule_mutex_;
  Submission* deferred_head_ = nullptr;
  Submission* deferred_tail_ = nullptr;
  Submission* in_flight_head_ = nullptr;
  Submission* in_flight_tail_ = nullptr;
  // Hand-offs so far (probes included), the completion semaphore's last
  // value handed to the GPU, and the number of the hand-off that signals it.
  // The first is written under the lock only, but read without it by the
  // polling thread (poll), which looks for a change.
  std::atomic<uint64_t> hand_offs_{0};
  uint64_t completion_value_ = 0;
  uint64_t completion_number_ = 0;
  // Whether the notification thread polls (poll), so that it sees a
  // submission handed off now end by its own signal, with none in flight
  // too (hand_off).
  bool polling_ = false;

  // Ready submissions waiting for the notification thread.
  std::mutex ready_mutex_;
  Submission* ready_head_ = nullptr;
  Submission* ready_tail_ = nullptr;
  std::atomic<bool> reevaluate_{false};

  // The number of the last submission the notification thread saw
  // finished, and the retired semaphores (an intrusive stack).
  std::atomic<uint64_t> completed_{0};
  std::atomic<Semaphore*> retired_head_{nullptr};

  // Every submission not yet finished, for wait_idle.
  sdk::InFlightTracker in_flight_;

  // Semaphores with pending timepoints, each retained while listed.
  std::mutex watch_mutex_;
  std::vector<Semaphore*, sdk::HostAllocator<Semaphore*>> watched_;

  // Owned by the notification thread.
  std::vector<Semaphore*, sdk::HostAllocator<Semaphore*>> watch_snapshot_;
  std::vector<VkSemaphore, sdk::HostAllocator<VkSemaphore>> wait_semaphores_;
  std::vector<uint64_t, sdk::HostAllocator<uint64_t>> wait_values_;
  Submission* finished_head_ = nullptr;
  Semaphore* dropped_head_ = nullptr;
  // Finished submissions' memory, reused by the next submissions, or freed
  // by the notification thread once the queue is idle (kIdleDelayNs).
  sdk::ReturnedAllocations returned_allocations_;

  std::atomic<bool> stopping_{false};
  sdk::PluginThreads thread_;
};

}  // namespace halo::vk

#endif  // HALO_VULKAN_QUEUE_HPP_
