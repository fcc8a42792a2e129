// The cuda plugin's timeline semaphore.
//
// The value lives on the host: the SDK's timeline core with a futex word
// that host waiters sleep on, so query makes no driver call and host waits
// block without spinning. Device work meets it through the order of the
// device's one stream: a submission issued on the stream records here the
// value it will signal (note_issued), and a later submission of the same
// stream that waits for that value or less needs no wait at all, because
// the stream runs it after the signalling work (see submission.hpp). Every
// other wait is a timepoint, and every signal lands on the host, in stream
// order, from the queue's completion worker.
#ifndef HALO_CUDA_SEMAPHORE_HPP_
#define HALO_CUDA_SEMAPHORE_HPP_

#include <cstdint>
#include <mutex>

#include "cuda_library.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/waitable_timeline.hpp"
#include "halo/semaphore.h"

namespace halo::cuda {

struct Device;

// A semaphore object. The header comes first so the handle and the object
// share an address.
struct Semaphore {
  halo_object_t header;
  sdk::Host host;
  // The creating device, retained so that it outlives its semaphores.
  Device* device;
  sdk::WaitableTimeline timeline;

  Semaphore(Device* device, uint64_t initial_value);
  ~Semaphore();

  // Creates a semaphore of |device| (borrowed; retained). Returns a new
  // reference in |out_semaphore| (libhalo has checked |initial_value|).
  static halo_status_t create(Device* device, uint64_t initial_value,
                              halo_semaphore_t** out_semaphore) noexcept;

  // Returns the semaphore when |semaphore| (any plugin's) is a cuda
  // semaphore, else NULL.
  static Semaphore* from(halo_semaphore_t* semaphore) noexcept;

  static Semaphore* cast(halo_semaphore_t* semaphore) noexcept {
    return reinterpret_cast<Semaphore*>(semaphore);
  }
  halo_semaphore_t* handle() noexcept {
    return reinterpret_cast<halo_semaphore_t*>(this);
  }

  // Records that work issued on |stream| will signal |value|. Called in
  // issue order (under the queue's issue lock).
  void note_issued(CUstream stream, uint64_t value) noexcept;
  // True when work already issued on |stream| will bring the semaphore to
  // |value| or more before any work issued on it later runs.
  bool issued_reaches(CUstream stream, uint64_t value) noexcept;

 private:
  std::mutex issued_mutex_;
  // The stream whose issued work signals this semaphore last, and the
  // highest value it will signal; NULL when none is known.
  CUstream issued_stream_ = nullptr;
  uint64_t issued_value_ = 0;
};

// Waits for ALL or ANY of |count| (semaphore of the device, value) pairs
// until |deadline|: OK when met, DEADLINE_EXCEEDED, or the failure status of
// a failed semaphore (sdk::wait_timelines); FAILED_PRECONDITION when one is
// an import for device waits only. Borrows everything. Thread-safe.
halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept;

}  // namespace halo::cuda

#endif  // HALO_CUDA_SEMAPHORE_HPP_
