// One queue_execute of the opencl plugin, from enqueue to completion.
//
// Waits are settled in three ways when the submission is made:
//   * already reached: nothing to do;
//   * signalled by an issued submission of the same context (one whose own
//     waits are all settled on the device): its completion event goes into
//     the wait list directly, and the device chains the two. The event is
//     borrowed, its signaller held until the commands are enqueued (no
//     retain and release per link); a submission that must wait on the
//     host first takes a reference instead, not to keep its signaller
//     from retiring meanwhile;
//   * anything else (a value nobody has enqueued yet, a host signal, a
//     semaphore of another device or plugin): a host-side wait of the SDK's
//     submission core, whose timepoint lives in the submission.
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
// is the completion event. Its completion (seen by the queue's worker
// polling it, or by a CL_COMPLETE callback; see queue.hpp) signals the
// signal semaphores (or fails them when the device work failed) and hands
// the submission to the worker, which releases what it holds. A failed wait
// fails the signal semaphores from the worker instead, with a copy of the
// wait's status.
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
// Imported device memory (cl_khr_external_memory) is acquired before the
// commands and released behind them, and the release is the completion
// event, so that every signal, however it lands, follows the memory's
// hand-back. NVIDIA's driver (580) blocks the enqueuing thread in both
// calls while their wait list waits, directly or through other commands, on
// an incomplete user event, and a thread blocked there could hold up the
// thread that would set it. So no such user event is left in their way:
// the acquire waits on nothing and the commands on it too; such a
// submission chains on no other submission's event (those may be behind
// their gates), so its waits are reached, or wait on the host, before it is
// enqueued; and its own gate opens once every command is in, before the
// release. Should that fail, the release is made where the completion is
// seen instead, and the signals fail there (none is linked as a device
// signal): nothing ordered the hand-back before their waiters. A release
// behind commands that failed does not run, so one is made there too.
//
// The completion callback is registered only once every host-side wait is
// reached: OpenCL implementations differ on whether a CL_COMPLETE callback
// runs for a command that failed, so the plugin never registers one on an
// event it is about to fail.
#ifndef HALO_OPENCL_SUBMISSION_HPP_
#define HALO_OPENCL_SUBMISSION_HPP_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "cl_library.hpp"
#include "device_signals.hpp"
#include "halo/device.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/submission.hpp"

namespace halo::cl {

struct Device;
class EventList;
class Queue;

class Submission final : public sdk::Submission, public SignalSource {
 public:
  // The arrays of the submission's own, in its one allocation.
  struct Extra {
    size_t chained = 0;
    size_t chained_sources = 0;
    size_t chained_waits = 0;
    size_t device_signals = 0;
    size_t external = 0;
  };
  static Extra plan_extra(sdk::AllocationPlan& plan,
                          const sdk::SubmissionLists& lists);

  // Creates a submission of |info| for |device|, in a block of |recycled|
  // where one fits, retaining the device, every semaphore and every command
  // buffer (which the caller has checked and acquired). Throws
  // std::bad_alloc.
  static Submission* create(Device* device, Queue* queue,
                            sdk::ReturnedAllocations* recycled,
                            const halo_queue_execute_info_t& info);

  // Settles the waits it can and, when none is left to the host, enqueues
  // the command buffers and the completion join (behind the gate when there
  // are several commands). On failure the caller abandons and destroys the
  // submission.
  halo_status_t prepare() noexcept;
  // Gives up a prepared submission that will not start: fails the gate so
  // that nothing enqueued runs, and releases external memory it acquired.
  void abandon() noexcept;
  // Registers the host-side waits and the device signals and lets the work
  // go. From here on the submission belongs to the queue's worker (it may be
  // gone when start returns).
  void start() noexcept;
  // On the worker, once handed over: cancels the timepoints whose callback
  // has not run, fails the signal semaphores after a failed wait, and
  // releases everything but the device.
  void finish() noexcept;

  // On the worker: whether this hand-over is of an issued submission to
  // poll (Queue::post_issued) rather than of a finished one. Clears it.
  bool take_issued_hand_over() noexcept {
    const bool issued = handed_over_issued_;
    handed_over_issued_ = false;
    return issued;
  }
  // How a spin on the completion event ended: the work finished (then
  // land_polled completes the submission); a newer issued submission of
  // the queue may show its end (see covers); or the work outlasted the
  // spin, and the queue keeps it among its long polls.
  enum class PollEnd { kFinished, kOvertaken, kOutlasted };
  // On the worker: polls the completion event for up to |poll_for|. When
  // |may_be_overtaken|, stops without a query once the queue says a newer
  // submission covers this one (Queue::overtakes).
  PollEnd poll_completion(std::chrono::microseconds poll_for,
                          bool may_be_overtaken) noexcept;
  // Its place in the queue's issue order (1 up; 0 until issued).
  uint64_t issue_number() const noexcept { return issue_number_; }
  // Whether this submission's completion shows |older|'s: it chained on
  // |older|'s completion event, both on the same queue. OpenCL terminates
  // a command that waits on a terminated one, so this one's completing
  // successfully means |older|'s work did too.
  bool covers(const Submission* older) const noexcept {
    return covers_ != 0 && covers_ == older->issue_number_;
  }
  // When the worker was handed the issued work (polling only).
  std::chrono::steady_clock::time_point issued_at() const noexcept {
    return issued_at_;
  }
  // Whether the last poll found the work finished successfully.
  bool completed() const noexcept { return polled_status_ == CL_COMPLETE; }
  // Completes a submission that a newer one it covers showed complete.
  void land_covered() noexcept {
    polled_status_ = CL_COMPLETE;
    land_polled();
  }
  // A submission joins the long polls: flushes the device's queue if the
  // implementation still holds its work (flush_if_held).
  void begin_long_poll() noexcept;
  // On the worker, for the oldest of the long polls (from the call that
  // makes it the oldest on): queries the completion event when its next
  // poll is due at |now|, flushing the queue if the implementation holds
  // the work (flush_if_held). Returns 0 when the work has finished (then
  // call land_polled), else the time until its next poll, each interval a
  // quarter longer than the last, up to 0.5 ms (10 ms past 100 ms).
  std::chrono::nanoseconds poll_long(
      std::chrono::steady_clock::time_point now) noexcept;
  // Completes a submission whose poll found its work finished, as the
  // completion callback would.
  void land_polled() noexcept;
  // The queue's long polls, or its run of covered submissions, oldest
  // first (worker only).
  Submission* next_long = nullptr;

  // Keeps an issued submission from going to the worker until the matching
  // drop. Called with the signal semaphore's device-signal lock held while
  // one of its signals is linked, which is what makes the submission alive
  // then.
  void hold() noexcept override;
  // Lets go of a hold, or of the completion callback's share; the last one
  // hands the submission to the worker.
  void drop() noexcept override;
  // On a holder's thread: blocks until the completion event is done;
  // returns whether the work succeeded (a failed or refused event is left
  // to the callback and the worker).
  bool await_work() noexcept override;
  // Returns a copy of the failure of a semaphore this submission chained on
  // (waited for through its signaller's event), which fails its signals
  // though the work ran, or OK. Thread-safe while the submission is held.
  halo_status_t chained_failure() noexcept override;

  // Use create; public for the SDK's create.
  Submission(const Init& init, const Extra& extra, Device* device,
             Queue* queue) noexcept;
  ~Submission() override;

 private:
  // Settles each wait as reached, chained or left to the host. Fails only
  // when a chained event cannot be retained.
  halo_status_t resolve_waits() noexcept;
  // Enqueues the commands (enqueue_commands), then lets go of the chained
  // events, also when that failed.
  halo_status_t enqueue_work();
  halo_status_t enqueue_commands();
  // Opens the gate and enqueues the release of the acquired external memory
  // behind |commands| as the completion event. Returns false, leaving the
  // memory acquired, when either call fails.
  bool release_behind(const EventList& commands);
  void link_signals() noexcept;
  void unlink_signals() noexcept;
  void issue() noexcept;
  // Registers on_complete on the completion event. When it succeeds the
  // submission may be gone by the time it returns.
  cl_int register_callback() noexcept;
  // The completion event's CL_EVENT_COMMAND_EXECUTION_STATUS, or the
  // query's error (negative, like a failed command's status).
  cl_int execution_status() noexcept;
  // Whether the completion event has finished, its status then in
  // |out_status|; false without a query while a host thread waits on it.
  bool finished(cl_int* out_status) noexcept;
  // Flushes the device's queue, once, unless |status| (a status query's
  // answer) shows the work handed to the device or ended.
  void flush_if_held(cl_int status) noexcept;
  void fire() noexcept;
  // The device work ended with |status|: signals or fails the signal
  // semaphores.
  void on_work_done(cl_int status) noexcept;
  void signal_all() noexcept;
  // Releases (or, for borrowed ones, drops the holds on the signallers of)
  // the chained events.
  void release_chained() noexcept;
  void release_events() noexcept;
  // Enqueues and flushes the release of the acquired external memory,
  // behind the acquire alone, for commands that have ended or will never
  // run; clears external_acquired_.
  void enqueue_release() noexcept;

  static void on_ready(sdk::Submission* submission) noexcept;
  static void CL_CALLBACK on_complete(cl_event event, cl_int status,
                                      void* user_data);

  const Api* api_;
  Device* device_;
  Queue* queue_;
  // Completion events of the submissions chained on: borrowed while
  // chained_sources_ holds their signaller (until the commands are
  // enqueued), else one reference each.
  cl_event* chained_;
  SignalSource** chained_sources_;
  size_t chained_count_ = 0;
  // Per wait: it was chained on its signaller's event.
  bool* chained_waits_;
  // One per signal; linked (and the signal marked native) on opencl
  // semaphores of the same context.
  DeviceSignal* device_signals_;
  // The imported device memory its command buffers name, each once
  // (Buffer::external).
  cl_mem* external_;
  size_t external_count_ = 0;
  // The memory was acquired, and not released yet.
  bool external_acquired_ = false;
  // The acquire's event (one reference), for enqueue_release.
  cl_event acquired_ = nullptr;
  // A long poll's: the interval (0 until it is the oldest), the next poll,
  // and when it became the oldest.
  std::chrono::nanoseconds poll_interval_{0};
  std::chrono::steady_clock::time_point next_poll_;
  std::chrono::steady_clock::time_point polled_since_;
  // The worker flushed the queue for it (flush_if_held).
  bool flushed_ = false;
  // When the worker was handed the issued work (polling only).
  std::chrono::steady_clock::time_point issued_at_;
  // Its place in the queue's issue order (1 up; 0 until issued), and the
  // highest such of the submissions of the same queue it chained on (0:
  // none; see covers).
  uint64_t issue_number_ = 0;
  uint64_t covers_ = 0;
  // The status the worker's poll found.
  cl_int polled_status_ = CL_QUEUED;
  // Why release_behind failed, for the signals it then fails.
  cl_int release_error_ = CL_SUCCESS;
  bool has_host_waits_ = false;
  cl_event gate_ = nullptr;
  cl_event completion_ = nullptr;
  // Set by the completion callback, which signalled (or failed) already.
  bool signalled_ = false;
  // Set by issue when it hands the submission to the worker to poll.
  bool handed_over_issued_ = false;
  // The completion callback's share plus one per hold.
  std::atomic<uint32_t> holders_{1};
  // See DeviceSignal::issued.
  std::atomic<bool> issued_{false};
  // A host waiter saw the completion event CL_COMPLETE (await_work).
  std::atomic<bool> seen_complete_{false};
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_SUBMISSION_HPP_
