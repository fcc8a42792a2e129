// The opencl plugin's timeline semaphore.
//
// The value lives on the host (the SDK timeline core plus a futex word that
// host waiters sleep on). Device work meets it through OpenCL events: a
// submission that will signal the semaphore registers its completion event
// here as a pending device signal, so that a later submission of the same
// context waits on that event directly (device-side chaining); any other
// wait becomes a timepoint that completes a user event (see submission.hpp).
//
// A blocking host wait uses the same list: when an issued submission will
// raise the semaphore to the value waited for, the waiter waits on that
// submission's completion event and completes the submission itself,
// rather than waiting for OpenCL's CL_COMPLETE callback, which some drivers
// (NVIDIA's) deliver milliseconds after the event completed.
#ifndef HALO_OPENCL_SEMAPHORE_HPP_
#define HALO_OPENCL_SEMAPHORE_HPP_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "cl_library.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::cl {

class Submission;

// The timeline core with futex-blocking host waits (the SDK's).
using WaitableTimeline = sdk::WaitableTimeline;

// A pending device signal: a submission enqueued on |context| whose
// completion event |event| will raise the semaphore to |value|. Storage
// belongs to the submission, which links it while the event is pending and
// unlinks it before releasing the event.
struct DeviceSignal {
  DeviceSignal* previous = nullptr;
  DeviceSignal* next = nullptr;
  uint64_t value = 0;
  cl_context context = nullptr;
  cl_event event = nullptr;
  // Set once every wait of the submission is settled on the device side,
  // so its event completes without any host action. Only such a signal may
  // be chained on: a submission still waiting on the host could be waiting,
  // transitively, for the very submission that would chain on it.
  const std::atomic<bool>* issued = nullptr;
  // The submission that owns the signal.
  Submission* submission = nullptr;
};

// A semaphore object. The header comes first so the handle and the object
// share an address.
struct Semaphore {
  halo_object_t header;
  sdk::Host host;
  const Api* api;
  // The creating device, retained so that it outlives its semaphores.
  halo_device_t* device;
  // The device's shared context: signals registered here are of it.
  cl_context context;
  WaitableTimeline timeline;

  Semaphore(sdk::Host host, const Api* api, halo_device_t* device,
            cl_context context, uint64_t initial_value);
  ~Semaphore();

  // Creates a semaphore of |device| (borrowed; retained). Returns a new
  // reference in |out_semaphore|; INVALID_ARGUMENT when |initial_value| is
  // above HALO_SEMAPHORE_MAX_VALUE.
  static halo_status_t create(sdk::Host host, const Api* api,
                              halo_device_t* device, cl_context context,
                              uint64_t initial_value,
                              halo_semaphore_t** out_semaphore) noexcept;

  // Returns the semaphore when |semaphore| (any plugin's) is an opencl
  // semaphore, else NULL.
  static Semaphore* from(halo_semaphore_t* semaphore) noexcept;

  static Semaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<Semaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }

  // Registers / removes a pending device signal. Thread-safe. The list is
  // kept in ascending order of value; signals come in ascending order as a
  // rule, so registering one is O(1) then.
  void link_signal(DeviceSignal* signal) noexcept;
  void unlink_signal(DeviceSignal* signal) noexcept;

  // Returns a new reference to the completion event of an issued pending
  // signal of |context| that will raise the semaphore to |value| or more
  // (the lowest such value), or NULL when there is none. Thread-safe; costs
  // O(pending signals at or above |value|), so a chain of submissions each
  // waiting on the one before costs O(1) a link.
  cl_event find_signal_event(cl_context context, uint64_t value) noexcept;

  // When an issued pending signal will raise the semaphore to |value| or
  // more, blocks until its submission's work is done and completes that
  // submission at once (see the file comment); returns at once otherwise.
  // Either way the caller then waits on the timeline as usual, which also
  // covers failed work. May only be called where a host wait may block
  // without a deadline.
  void await_device_signal(uint64_t value) noexcept;

 private:
  // The issued pending signal of |context| with the lowest value at or
  // above |value|, or NULL. Called with mutex_ held.
  DeviceSignal* lowest_issued_signal(cl_context context,
                                     uint64_t value) noexcept;

  std::mutex mutex_;
  DeviceSignal* signals_ = nullptr;  // The lowest value first.
  DeviceSignal* signals_tail_ = nullptr;
};

// Waits for ALL or ANY of |count| (opencl semaphore, value) pairs until
// |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of a
// failed semaphore. An empty list is OK at once; a poll allocates nothing.
// Blocking on several semaphores registers a timepoint on each that wakes
// one futex word on the waiter's stack. Borrows everything. Thread-safe.
halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept;

}  // namespace halo::cl

#endif  // HALO_OPENCL_SEMAPHORE_HPP_
