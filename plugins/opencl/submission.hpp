// One queue_execute of the opencl plugin, from enqueue to completion.
//
// Waits are settled in three ways when the submission is made:
//   * already reached: nothing to do;
//   * signalled by an issued submission of the same context (one whose own
//     waits are all settled on the device): its completion event goes into
//     the wait list directly, and the device chains the two;
//   * anything else (a value nobody has enqueued yet, a host signal, a
//     semaphore of another device or plugin): a timepoint on the semaphore,
//     held in a pooled WaitRecord.
// A submission without host-side waits enqueues its command buffers at
// once, waiting on the device-side events. One with host-side waits
// enqueues nothing until the timepoints have reached every one of them
// (in the callback that reaches the last); when one fails, nothing is ever
// enqueued. It never leaves a command on the queue waiting for the host:
// OpenCL lets an implementation run even an out-of-order queue in order,
// and then such a command would hold back every command enqueued after it,
// among them the one whose completion it waits for (wait before signal).
// So every enqueued command waits only on commands enqueued before it,
// which makes progress on any conforming queue.
//
// The commands of a submission of several commands also wait on one user
// event, the gate, opened once all are enqueued, so that a failed enqueue
// midway can fail it and nothing half enqueued runs. A join after the work
// is the completion event; its callback signals the signal semaphores (or
// fails them when the device work failed) and hands the submission to the
// queue's worker, which releases what it holds. A failed wait fails the
// signal semaphores from the worker instead, with a copy of the wait's
// status.
//
// Signals of opencl semaphores of the same context land through the
// semaphore's pending device signals (device_signals.hpp), which land them
// in the order the device completed the work, whichever thread gets there
// first: the callback, a host thread blocked on the value that waited on
// the completion event instead (Semaphore::await_device_signal), or the
// landing of a higher signal that found this one's event complete. Every
// other signal semaphore (another plugin's, another context's) is signalled
// by the callback. A signal that finds the payload at or past its value
// fails its semaphore (sdk::signal_from_queue). The submission goes to the
// worker once the callback and every holder (a waiting host thread, a
// thread landing one of its signals) have let go of it.
//
// The completion callback is registered only once every host-side wait is
// reached: OpenCL implementations differ on whether a CL_COMPLETE callback
// runs for a command that failed, so the plugin never registers one on an
// event it is about to fail.
#ifndef HALO_OPENCL_SUBMISSION_HPP_
#define HALO_OPENCL_SUBMISSION_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cl_library.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "semaphore.hpp"
#include "wait_record_pool.hpp"

namespace halo::cl {

struct Device;
class Queue;

class Submission {
 public:
  // Creates a submission of |info| for |device|: copies the lists and
  // retains the device, every semaphore and every command buffer (which the
  // caller has checked and acquired). Throws std::bad_alloc.
  static Submission* create(Device* device, Queue* queue,
                            const halo_queue_execute_info_t& info);
  // Releases everything still held, the device last, and frees the memory.
  // Accepts NULL.
  static void destroy(Submission* submission) noexcept;

  // Settles the waits it can and, when none is left to the host, enqueues
  // the command buffers and the completion join (behind the gate when there
  // are several commands). On failure the caller abandons and destroys the
  // submission.
  halo_status_t prepare() noexcept;
  // Gives up a prepared submission that will not start: fails the gate so
  // that nothing enqueued runs.
  void abandon() noexcept;
  // Registers the host-side waits and the device signals and lets the work
  // go. From here on the submission belongs to the queue's worker (it may be
  // gone when start returns).
  void start() noexcept;
  // On the worker, once handed over: cancels the timepoints whose callback
  // has not run, fails the signal semaphores after a failed wait, and
  // releases everything but the device.
  void finish() noexcept;

  // Keeps an issued submission from going to the worker until the matching
  // drop. Called with the signal semaphore's device-signal lock held while
  // one of its signals is linked, which is what makes the submission alive
  // then.
  void hold() noexcept;
  // Lets go of a hold, or of the completion callback's share; the last one
  // hands the submission to the worker.
  void drop() noexcept;
  // On a holder's thread: blocks until the completion event is done;
  // returns whether the work succeeded (a failed or refused event is left
  // to the callback and the worker).
  bool await_work() noexcept;
  // Returns a copy of the failure of a semaphore this submission chained on
  // (waited for through its signaller's event), which fails its signals
  // though the work ran, or OK. Thread-safe while the submission is held.
  halo_status_t chained_failure() noexcept;

  // The queue's bookkeeping (guarded by the queue's mutex).
  uint64_t sequence = 0;
  Submission* next_ready = nullptr;
  Submission* previous_in_flight = nullptr;
  Submission* next_in_flight = nullptr;

 private:
  struct Layout;
  Submission(Device* device, Queue* queue, const Layout& layout,
             const halo_queue_execute_info_t& info) noexcept;
  ~Submission();

  halo_status_t resolve_waits();
  halo_status_t enqueue_work();
  void add_host_wait(halo_semaphore_t* semaphore, uint64_t value);
  void link_signals() noexcept;
  void unlink_signals() noexcept;
  void issue() noexcept;
  void fire() noexcept;
  void complete(cl_int status) noexcept;
  void signal_all() noexcept;
  void record_failure(halo_status_t status) noexcept;
  bool settle(uint64_t remove, uint64_t add) noexcept;
  void release_resources() noexcept;

  static void on_wait(void* user_data, halo_timepoint_t* timepoint,
                      halo_status_t status) noexcept;
  static void CL_CALLBACK on_complete(cl_event event, cl_int status,
                                      void* user_data);

  sdk::Host host_;
  const Api* api_;
  Device* device_;
  Queue* queue_;
  void* allocation_;
  size_t wait_count_;
  halo_semaphore_t** wait_semaphores_;
  uint64_t* wait_values_;
  // How each wait was settled (see the file comment).
  uint8_t* wait_kinds_;
  size_t signal_count_;
  halo_semaphore_t** signal_semaphores_;
  uint64_t* signal_values_;
  // One per signal; linked on opencl semaphores of the same context.
  DeviceSignal* device_signals_;
  bool* signal_linked_;
  size_t command_buffer_count_;
  halo_command_buffer_t** command_buffers_;
  // Completion events of the submissions chained on (one reference each).
  cl_event* chained_;
  size_t chained_count_ = 0;
  // The host-side waits.
  WaitRecord* records_ = nullptr;
  uint64_t host_wait_count_ = 0;
  cl_event gate_ = nullptr;
  cl_event completion_ = nullptr;
  bool holds_references_ = true;
  // Set by the completion callback, which signalled (or failed) already.
  bool signalled_ = false;
  // The completion callback's share plus one per hold.
  std::atomic<uint32_t> holders_{1};
  // See DeviceSignal::issued.
  std::atomic<bool> issued_{false};
  // bit 0 FAILED, bit 1 REGISTERING, bits 2+ host-side waits not settled.
  std::atomic<uint64_t> state_{0};
  // The first failure: a failed wait, or the work's own.
  std::atomic<halo_status_t> failure_{nullptr};
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_SUBMISSION_HPP_
