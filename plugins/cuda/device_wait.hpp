// A semaphore the cuda device imported for device waits only (external.h,
// ABI 1.5): a Vulkan timeline of the same GPU, exported as an opaque fd.
//
// CUDA waits on such a timeline on the stream
// (cuWaitExternalSemaphoresAsync) but cannot read its payload, so this
// semaphore offers nothing to the host: query, signal, fail, host waits,
// timepoints and export return FAILED_PRECONDITION. The device's queue
// waits on it natively, always: the stream holds the work behind the wait
// until the exporter's device signals the value (submission.cpp). libhalo
// names it in a submission only once that signal is committed to the
// exporter's device; an application that imports one itself makes sure the
// value comes, as with CUDA's own waits.
#ifndef HALO_CUDA_DEVICE_WAIT_HPP_
#define HALO_CUDA_DEVICE_WAIT_HPP_

#include <cstdint>

#include "cuda_library.hpp"
#include "halo/external_handle.h"
#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::cuda {

struct Device;

struct DeviceWaitSemaphore {
  halo_object_t header;
  sdk::Host host;
  // Retained: the external semaphore belongs to its context.
  Device* device;
  CUexternalSemaphore external = nullptr;

  explicit DeviceWaitSemaphore(Device* device) noexcept;
  ~DeviceWaitSemaphore();

  // Imports the OPAQUE_FD timeline |handle| names for |device| (retained).
  // The fd is closed only on success (external.h). Returns a new reference
  // in |out_semaphore|, or the failed call's status.
  static halo_status_t import(Device* device,
                              const halo_external_handle_t& handle,
                              halo_semaphore_t** out_semaphore) noexcept;

  // Returns the semaphore when |semaphore| (any plugin's) is one of these,
  // else NULL.
  static DeviceWaitSemaphore* from(halo_semaphore_t* semaphore) noexcept;
  static DeviceWaitSemaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<DeviceWaitSemaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }

  // Makes the stream |stream| (the context current) wait until the
  // timeline reaches |value|.
  halo_status_t enqueue_wait(CUstream stream, uint64_t value) noexcept;

  // The host's entries: each FAILED_PRECONDITION naming its call.
  halo_status_t query(uint64_t* out_value) noexcept;
  halo_status_t signal(uint64_t value) noexcept;
  void fail(halo_status_t status) noexcept;
  halo_status_t wait(uint64_t value, halo_time_ns_t deadline) noexcept;
  halo_status_t acquire_timepoint(halo_timepoint_t* timepoint) noexcept;
  bool cancel_timepoint(halo_timepoint_t* timepoint) noexcept;
  halo_status_t export_handle(halo_external_handle_type_t type,
                              halo_external_handle_t* out_handle) noexcept;

  // FAILED_PRECONDITION "|function|: the semaphore was imported for device
  // waits only".
  halo_status_t host_use(const char* function) noexcept;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_DEVICE_WAIT_HPP_
