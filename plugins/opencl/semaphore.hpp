// The opencl plugin's timeline semaphore.
//
// The value lives on the host (the SDK timeline core plus a futex word that
// host waiters sleep on). Device work meets it through OpenCL events: a
// submission that will signal the semaphore registers its completion event
// here as a pending device signal (device_signals.hpp), so that a later
// submission of the same context waits on that event directly (device-side
// chaining), and so that the signals land in the order the device completed
// them; any other wait becomes a timepoint (see submission.hpp).
//
// A blocking host wait uses the same list: when an issued submission will
// raise the semaphore to the value waited for, the waiter waits on that
// submission's completion event and lands its signal itself, rather than
// waiting for OpenCL's CL_COMPLETE callback, which some drivers (NVIDIA's)
// deliver milliseconds after the event completed.
#ifndef HALO_OPENCL_SEMAPHORE_HPP_
#define HALO_OPENCL_SEMAPHORE_HPP_

#include <cstdint>

#include "cl_library.hpp"
#include "device_signals.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::cl {

// The timeline core with futex-blocking host waits (the SDK's).
using WaitableTimeline = sdk::WaitableTimeline;

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
  // The pending signals of submissions of |context|.
  DeviceSignals device_signals;

  Semaphore(sdk::Host host, const Api* api, halo_device_t* device,
            cl_context context, uint64_t initial_value);
  ~Semaphore();

  // Creates a semaphore of |device| (borrowed; retained). Returns a new
  // reference in |out_semaphore| (libhalo has checked it and
  // |initial_value|).
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

  // The vtable's wait: a wait without a deadline first awaits the device
  // signal that will reach |value| (await_device_signal).
  halo_status_t wait(uint64_t value, halo_time_ns_t deadline) noexcept;

  // When an issued pending signal will raise the semaphore to |value| or
  // more, blocks until its submission's work is done and lands that signal
  // at once (see the file comment), after every lower one whose work is
  // done too; returns at once otherwise. Only this semaphore's signal lands
  // early: the submission's other signals wait for its callback. Either way
  // the caller then waits on the timeline as usual, which also covers
  // failed work and a signal another thread is landing. May only be called
  // where a host wait may block without a deadline.
  void await_device_signal(uint64_t value) noexcept;
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
