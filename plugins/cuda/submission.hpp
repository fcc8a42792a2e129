// One queue_execute of the cuda plugin, from issue to completion.
//
// Waits are settled in four ways when the submission is made:
//   * already reached: nothing to do;
//   * on an import of this device for device waits only (device_wait.hpp):
//     the stream waits for the value itself, before the work;
//   * to be reached by work already issued on the device's stream (a cuda
//     semaphore of this device whose record says so): nothing to do either,
//     since the stream runs this submission's work after that work. This is
//     a chained wait; it needs no GPU-side wait and no host round trip;
//   * anything else (a value nobody has issued yet, a host signal, another
//     device's or plugin's semaphore): a host-side wait of the SDK's
//     submission core, whose timepoint lives in the submission.
// The work is issued on the stream once every host-side wait is reached (at
// once when there are none), so nothing on the stream ever waits for the
// host, and a wait that fails issues nothing. An event recorded after the
// work marks its completion; the queue's completion worker synchronises on
// it in issue order, then signals the signal semaphores (or fails them) and
// releases the submission. A chained wait whose semaphore failed instead of
// reaching its value (its signaller's work failed, or the host failed it)
// is found there too, since the signaller completed first on the same
// worker: the work ran, but its signals fail with that failure.
#ifndef HALO_CUDA_SUBMISSION_HPP_
#define HALO_CUDA_SUBMISSION_HPP_

#include <cstddef>

#include "cuda_library.hpp"
#include "halo/device.h"
#include "halo/sdk/submission.hpp"

namespace halo::cuda {

struct Device;

class Submission final : public sdk::Submission {
 public:
  // The arrays of the submission's own, in its one allocation.
  struct Extra {
    size_t chained_waits = 0;
    size_t device_waits = 0;
  };
  static Extra plan_extra(sdk::AllocationPlan& plan,
                          const sdk::SubmissionLists& lists);

  // Creates a submission of |info| for |device|, in a block of |recycled|
  // where one fits, retaining the device, every semaphore and every command
  // buffer (which the caller has checked and acquired). Throws
  // std::bad_alloc.
  static Submission* create(Device* device, sdk::ReturnedAllocations* recycled,
                            const halo_queue_execute_info_t& info);

  // Marks native the waits that need no host (reached, or chained). Before
  // register_waits.
  void resolve_waits() noexcept;
  // Issues the device waits, then the command buffers, on the device's
  // stream (the context
  // current, under the queue's issue lock), and records the signals of
  // this device's semaphores as issued. Returns false, with the failure
  // recorded, when an issue fails; whatever was issued before then still
  // runs.
  bool issue() noexcept;
  // On the worker, once the stream ran past the work (or failed with
  // |device_status|, borrowed): records that failure, or that of a chained
  // wait's semaphore.
  void check_work(halo_status_t device_status) noexcept;

  // Its place in the stream's issue order (from 1) once issued, wholly or
  // in part; 0 when nothing was issued (a wait failed).
  uint64_t issue_sequence = 0;

  // Use create; public for the SDK's create.
  Submission(const Init& init, const Extra& extra, Device* device) noexcept;

 private:
  Device* device_;
  // Per wait: chained on work issued on the stream before.
  bool* chained_waits_;
  // Per wait: on an import for device waits only, waited for by the stream.
  bool* device_waits_;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_SUBMISSION_HPP_
