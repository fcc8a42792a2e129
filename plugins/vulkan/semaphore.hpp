// The vulkan semaphore: a timeline VkSemaphore, plus what Vulkan lacks.
//
// The payload lives in the VkSemaphore: host signals are vkSignalSemaphore,
// queries vkGetSemaphoreCounterValue, host waits vkWaitSemaphores, and queue
// submissions of the same device wait on and signal it on the GPU. Beside it
// the semaphore keeps a "shadow" sdk::Timeline that carries what Vulkan has
// no notion of: the sticky failure status, and timepoints. The shadow's
// payload trails the native payload (it is advanced by host signals and by
// the device's notification thread as it observes GPU signals); a failure
// is recorded only in the shadow and, once set, overrides the native value
// for every query, signal and wait (DESIGN.md §4).
//
// A semaphore shared with another device (created EXPORTABLE, or imported:
// semaphore_external.cpp) also carries a failure on its native timeline, as
// a payload of HALO_SEMAPHORE_FAILURE_VALUE, since the other side cannot
// see this shadow; a side that finds such a payload it did not set fails
// its shadow with DATA_LOSS.
#ifndef HALO_VULKAN_SEMAPHORE_HPP_
#define HALO_VULKAN_SEMAPHORE_HPP_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "halo/external_handle.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/timeline.hpp"
#include "halo/semaphore.h"
#include "vulkan_api.hpp"

namespace halo::vk {

struct Device;

struct Semaphore {
  halo_object_t header;
  sdk::Host host;
  // Retained: the VkSemaphore belongs to its VkDevice.
  Device* device;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  sdk::Timeline shadow;
  // Serialises host signals with each other and with the queue's
  // bookkeeping of pending GPU signals: Vulkan requires every signal value to
  // exceed the current one and to stay below every pending GPU signal.
  std::mutex signal_mutex;
  // Values that submissions already handed to the GPU will signal, in
  // ascending order (guarded by signal_mutex); values at or below the
  // native payload are pruned lazily.
  std::vector<uint64_t, sdk::HostAllocator<uint64_t>> pending_signals;
  // The highest value this process set the payload to or handed the GPU to
  // signal (guarded by signal_mutex): the initial value, host signals and
  // reserved GPU signals. Only those move an unshared semaphore's payload,
  // so it is never above this, and a value above this is above the payload
  // and every pending signal without a payload read.
  uint64_t highest_set;
  // Set while the notification thread watches this semaphore for pending
  // timepoints (guarded by the queue's watch lock).
  std::atomic<bool> watched{false};
  // Links semaphores the notification thread stopped watching, for its
  // release pass (that thread only).
  Semaphore* next_dropped = nullptr;
  // The hand-off number of the last submission handed to the GPU that
  // waits on this semaphore natively; 0 when none did. Written by the queue
  // under its scheduling lock, read once the last reference has gone.
  uint64_t last_native_wait = 0;
  // Set when the queue took the semaphore over as its last reference went
  // (Queue::retire): it no longer holds its device, and the queue links it
  // through next_retired until it destroys it.
  bool retired = false;
  Semaphore* next_retired = nullptr;
  // Created with HALO_SEMAPHORE_FLAG_EXPORTABLE, or imported: the timeline
  // is (or may be) shared with another device.
  bool exportable = false;
  bool imported = false;

  Semaphore(Device* device, uint64_t initial_value);
  ~Semaphore();

  // Creates a semaphore of |device| (retained), exportable when |flags|
  // asks for it. Returns a new reference in |out_semaphore| (libhalo has
  // checked it, |initial_value| and |flags|) or the failed call's status.
  static halo_status_t create(Device* device, uint64_t initial_value,
                              halo_semaphore_flags_t flags,
                              halo_semaphore_t** out_semaphore) noexcept;
  // Makes a semaphore of |device| (retained) over the timeline |handle|
  // names (halo_semaphore_import; libhalo has checked the arguments). The
  // fd is closed only on success (external.h).
  static halo_status_t import(Device* device,
                              const halo_external_handle_t& handle,
                              halo_semaphore_t** out_semaphore) noexcept;
  // The vtable's destroy: the device's queue may keep the semaphore a while
  // (SemaphoreKeeper::retire).
  static void destroy(Semaphore* semaphore) noexcept;

  // Returns true when |semaphore| (any plugin's) is a vulkan semaphore.
  static bool is_vulkan(halo_semaphore_t* semaphore) noexcept;

  static Semaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<Semaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }

  bool failed() const noexcept {
    return shadow.payload() >= HALO_SEMAPHORE_FAILURE_VALUE;
  }
  // Reads the native payload into |out_value|. Returns the failed call's
  // status (a lost device) otherwise.
  halo_status_t native_value(uint64_t* out_value) noexcept;
  // Raises the shadow to |value| if it is behind, releasing the timepoints
  // that reaches (callbacks run on the calling thread).
  void advance_shadow(uint64_t value) noexcept;
  // Reads the native payload and advances the shadow to it.
  void sync_shadow() noexcept;

  bool shared() const noexcept { return exportable || imported; }
  // Returns true when |native|, a payload just read, is a failure value
  // (only a shared semaphore's can be); the shadow is then failed, with
  // DATA_LOSS when another side set it. Call with no lock held: the
  // shadow's timepoint callbacks run on this thread.
  bool adopt_failure(uint64_t native) noexcept;
  // Writes a failed shadow's failure value onto a shared semaphore's native
  // timeline, unless a GPU signal is still pending there (Vulkan forbids a
  // host signal past it); the queue calls it again once that has landed.
  void publish_failure() noexcept;

  // For the queue, under its scheduling lock: true when the GPU will reach
  // |value| on its own (already reached, or a submission already handed to
  // the GPU signals at least |value|). Reads the payload only when neither
  // the shadow, a pending signal nor highest_set tells.
  bool gpu_reaches(uint64_t value) noexcept;
  // The vtable's signal_committed (ABI 1.5): gpu_reaches for a semaphore
  // that has not failed. Another plugin's device waits on an import of it
  // only then (external.h).
  bool signal_committed(uint64_t value) noexcept {
    return !failed() && gpu_reaches(value);
  }
  // Records that a submission about to be handed to the GPU signals
  // |value|. Returns false (nothing recorded) when Vulkan forbids it: the
  // value does not exceed the payload and every pending signal. Reads the
  // payload only for a shared semaphore, a value not above highest_set, or
  // every kUnprunedSignals reservations (to prune pending_signals).
  bool reserve_gpu_signal(uint64_t value) noexcept;
  // Takes back the last reserve_gpu_signal when the submission failed.
  void unreserve_gpu_signal(uint64_t value) noexcept;

  // The semaphore operations (the vtable's entries).
  halo_status_t query(uint64_t* out_value) noexcept;
  halo_status_t signal(uint64_t value) noexcept;
  void fail(halo_status_t status) noexcept;
  halo_status_t wait(uint64_t value, halo_time_ns_t deadline) noexcept;
  halo_status_t acquire_timepoint(halo_timepoint_t* timepoint) noexcept;
  // acquire_timepoint without asking the notification thread to watch the
  // native payload: for a timepoint that host signals, failures and the
  // queue's own hand-offs release in time (Queue::acquire_wait).
  halo_status_t acquire_unwatched_timepoint(
      halo_timepoint_t* timepoint) noexcept;
  bool cancel_timepoint(halo_timepoint_t* timepoint) noexcept;
  // The vtable's export entry (ABI 1.3).
  halo_status_t export_handle(halo_external_handle_type_t type,
                              halo_external_handle_t* out_handle) noexcept;

 private:
  // How long pending_signals may grow without a payload read to prune it.
  static constexpr size_t kUnprunedSignals = 64;

  // Whether |value| is above the payload and every pending signal, known
  // without a payload read: an unshared semaphore's payload moves only by
  // this process's host signals and reserved GPU signals, never above
  // highest_set (signal_mutex held).
  bool above_all_set(uint64_t value) const noexcept {
    return !shared() && value > highest_set;
  }
  // Whether a host signal of |value| passes check_signal whatever the
  // payload: above everything set, with no GPU signal pending, and within
  // the device's limit of the shadow, which trails the payload
  // (signal_mutex held).
  bool signal_known_valid(uint64_t value) const noexcept;
  // Prunes pending_signals up to |native| (signal_mutex held).
  void prune_pending(uint64_t native) noexcept;
  // Reads the native payload into |out_native| and prunes pending_signals
  // up to it (signal_mutex held); false, having freed the status, when the
  // read fails.
  bool read_and_prune(uint64_t* out_native) noexcept;
  halo_status_t check_signal(uint64_t value, uint64_t native) noexcept;
};

// Creates a timeline semaphore of |device| with |initial_value| that
// exports as an opaque fd (VK_KHR_external_semaphore_fd). UNIMPLEMENTED
// when the device cannot export timelines.
halo_status_t create_exportable_timeline(Device* device, uint64_t initial_value,
                                         VkSemaphore* out_semaphore) noexcept;

// Waits for ALL or ANY of |count| (semaphore of |device|, value) pairs until
// |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of a
// failed semaphore. A poll allocates nothing. Thread-safe.
halo_status_t wait_semaphores(Device* device, halo_wait_mode_t mode,
                              size_t count, halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_SEMAPHORE_HPP_
