// A complete timeline semaphore for a plugin whose device has no native
// timeline primitive (or that starts without one): the SDK's futex-backed
// timeline behind the SDK's semaphore vtable. The cpu plugin's semaphores
// are these, and a C plugin gets them through halo/sdk/c/semaphore.h.
//
// They share as HOST_TIMELINE_FD (external_handle.h, ABI 1.6): an
// EXPORTABLE one keeps its payload in a shared page from its creation, and
// an import maps the page it is given, so semaphores of any plugin in any
// process that speaks the page's protocol are one timeline.
#ifndef HALO_SDK_HOST_SEMAPHORE_HPP_
#define HALO_SDK_HOST_SEMAPHORE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "halo/device.h"
#include "halo/external_handle.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/shared_timeline.hpp"
#include "halo/sdk/submission.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {

// The header comes first so the handle and the object share an address.
struct HostSemaphore {
  // The handle types these semaphores export and import as.
  static constexpr halo_external_handle_type_t kShareTypes =
      HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;

  halo_object_t header;
  Host host;
  // The creating device, retained so that it outlives its semaphores.
  halo_device_t* device;
  WaitableTimeline timeline;
  // The page of an EXPORTABLE or imported semaphore, else NULL; its watch
  // ends before the timeline goes.
  SharedTimeline* shared = nullptr;
  // The highest value a ready submission of this process will signal.
  std::atomic<uint64_t> committed{0};

  HostSemaphore(Host host, halo_device_t* device, uint64_t initial_value);
  ~HostSemaphore();

  // Creates a semaphore of |device| (borrowed; retained by the semaphore).
  // Returns a new reference in |out_semaphore| (libhalo has checked it,
  // |initial_value| and |flags|), or RESOURCE_EXHAUSTED. With
  // HALO_SEMAPHORE_FLAG_EXPORTABLE its payload lives in a shared page, and
  // a thread watches the page for other sharers' changes.
  static halo_status_t create(
      Host host, halo_device_t* device, uint64_t initial_value,
      halo_semaphore_t** out_semaphore,
      halo_semaphore_flags_t flags = HALO_SEMAPHORE_FLAG_NONE) noexcept;

  // The device vtable's import_semaphore for a HOST_TIMELINE_FD (libhalo
  // has checked the handle and that the device imports the type): a whole
  // semaphore over the page, whatever the handle's flags. Closes
  // |handle->fd| on success only. INVALID_ARGUMENT for an fd that is not a
  // host timeline's page.
  static halo_status_t import(Host host, halo_device_t* device,
                              const halo_external_handle_t* handle,
                              halo_semaphore_t** out_semaphore) noexcept;

  // The semaphore vtable's export_handle: a new fd of the page.
  halo_status_t export_handle(halo_external_handle_type_t type,
                              halo_external_handle_t* out_handle) noexcept;

  // The semaphore vtable's signal_committed: the value is reached, or a
  // submission of this SDK's queue core that signals it or more has every
  // wait reached (commit_queue_signals), and the semaphore has not failed.
  bool signal_committed(uint64_t value) noexcept {
    const uint64_t payload = timeline.payload();
    if (payload >= HALO_SEMAPHORE_FAILURE_VALUE) return false;
    return payload >= value ||
           committed.load(std::memory_order_acquire) >= value;
  }

  // The vtable's destroy. On the page's watcher thread (the last reference
  // went in a callback of another sharer's signal) the watcher destroys it
  // once that signal is taken in.
  static void destroy(HostSemaphore* semaphore) noexcept;

  // True when |semaphore| (any plugin's, or NULL) is a HostSemaphore.
  static bool is(halo_semaphore_t* semaphore) noexcept;

  static HostSemaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<HostSemaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }

 private:
  // Moves the payload into |page| (owned from now on) and starts its watch.
  void share(SharedTimeline* page);
};

// Marks the signals of |submission| that are HostSemaphores as committed:
// called by a queue when a submission is ready with no failure (every wait
// reached), after which its signals come from the queue's worker alone.
// libhalo may then let another plugin's device wait for them on the device
// (external.h). Allocates nothing.
void commit_queue_signals(Submission& submission) noexcept;

// Waits for ALL or ANY of |count| (HostSemaphore, value) pairs until
// |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of a
// failed semaphore. An empty list is OK at once. A poll allocates nothing;
// blocking on several semaphores registers a timepoint on each that wakes
// one futex word on the waiter's stack, so nothing busy-spins. Borrows
// everything. Thread-safe.
halo_status_t wait_host_semaphores(Host host, halo_wait_mode_t mode,
                                   size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline) noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_HOST_SEMAPHORE_HPP_
