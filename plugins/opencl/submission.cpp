// A queue submission's life: settling waits, enqueueing, completion and
// release (see submission.hpp).
#include "submission.hpp"

#include <algorithm>

#include "cl_status.hpp"
#include "command_buffer.hpp"
#include "device.hpp"
#include "event_list.hpp"
#include "halo/sdk/library_pin.hpp"
#include "halo/sdk/queue_signal.hpp"
#include "halo/sdk/spin.hpp"
#include "queue.hpp"
#include "semaphore.hpp"

namespace halo::cl {
namespace {

// The status a failed gate is given: the commands behind it end with it.
constexpr cl_int kGateFailed = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;

// Between two queries of a polled completion event (each takes the lock
// the caller's next enqueue needs). Host waits block on the event
// themselves, so the interval delays only the worker's own landing.
constexpr std::chrono::microseconds kPollInterval = sdk::kDriverPollInterval;
// The worker's first query of issued work comes no sooner after the issue:
// the shortest round trip on NVIDIA's H200 (an empty kernel, a 4-byte
// fill) takes 11-12 µs, and earlier queries found nothing finished but
// slowed the caller's enqueues and host waits (bench/README.md).
constexpr std::chrono::microseconds kFirstPollAfterIssue{10};
// The same for a submission that chained on an earlier one of its queue:
// longer, as the next link of a chain usually comes sooner (on the H200 a
// link of halo's 10,000-submission chain takes 11-15 us) and its end shows
// this one's, so this one need not be asked about at all.
constexpr std::chrono::microseconds kFirstPollInChain{20};
// The longest interval between two queries of work that outlasted the
// poll: the worker sees it finished at most this late, or about a quarter
// of the time already waited, and queries it at most 2,000 times a second;
// after kLongPollPatience, at most kLongestPatientPollInterval late.
constexpr std::chrono::nanoseconds kLongestPollInterval =
    std::chrono::microseconds(500);
constexpr std::chrono::nanoseconds kLongPollPatience =
    std::chrono::milliseconds(100);
constexpr std::chrono::nanoseconds kLongestPatientPollInterval =
    std::chrono::milliseconds(10);

// Sets user event |event|'s status, holding a reference of its own for the
// call: completing it may run the work behind it, and the callbacks of that
// work may release every other reference before the call returns.
cl_int set_event_status(const Api* api, cl_event event, cl_int status) {
  api->clRetainEvent(event);
  cl_int code = api->clSetUserEventStatus(event, status);
  api->clReleaseEvent(event);
  return code;
}

}  // namespace

Submission::Extra Submission::plan_extra(sdk::AllocationPlan& plan,
                                         const sdk::SubmissionLists& lists) {
  Extra extra;
  extra.chained = plan.reserve<cl_event>(lists.waits.count);
  extra.chained_sources = plan.reserve<SignalSource*>(lists.waits.count);
  extra.chained_waits = plan.reserve<bool>(lists.waits.count);
  extra.device_signals = plan.reserve<DeviceSignal>(lists.signals.count);
  size_t external = 0;
  for (size_t i = 0; i < lists.command_buffer_count; ++i) {
    external +=
        CommandBuffer::cast(lists.command_buffers[i])->external_memory.size();
  }
  extra.external = plan.reserve<cl_mem>(external);
  return extra;
}

Submission* Submission::create(Device* device, Queue* queue,
                               sdk::ReturnedAllocations* recycled,
                               const halo_queue_execute_info_t& info) {
  return sdk::Submission::create<Submission>(
      device->host, recycled, device->handle(), sdk::SubmissionLists::of(info),
      device, queue);
}

Submission::Submission(const Init& init, const Extra& extra, Device* device,
                       Queue* queue) noexcept
    : sdk::Submission(init),
      api_(device->api),
      device_(device),
      queue_(queue),
      chained_(init.at<cl_event>(extra.chained)),
      chained_sources_(init.at<SignalSource*>(extra.chained_sources)),
      chained_waits_(init.at<bool>(extra.chained_waits)),
      device_signals_(init.at<DeviceSignal>(extra.device_signals)),
      external_(init.at<cl_mem>(extra.external)) {
  for (size_t i = 0; i < wait_count(); ++i) chained_waits_[i] = false;
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    for (cl_mem memory :
         CommandBuffer::cast(command_buffer(i))->external_memory) {
      if (std::find(external_, external_ + external_count_, memory) ==
          external_ + external_count_) {
        external_[external_count_++] = memory;
      }
    }
  }
  for (size_t i = 0; i < signal_count(); ++i) {
    ::new (&device_signals_[i]) DeviceSignal{};
  }
}

Submission::~Submission() { release_events(); }

void Submission::release_chained() noexcept {
  for (size_t i = 0; i < chained_count_; ++i) {
    if (chained_sources_[i] != nullptr) {
      chained_sources_[i]->drop();
    } else {
      api_->clReleaseEvent(chained_[i]);
    }
  }
  chained_count_ = 0;
}

void Submission::release_events() noexcept {
  release_chained();
  if (gate_ != nullptr) api_->clReleaseEvent(gate_);
  if (acquired_ != nullptr) api_->clReleaseEvent(acquired_);
  acquired_ = nullptr;
  // Off the worker where it would contend with the caller's enqueue.
  queue_->release_event(completion_);
  gate_ = completion_ = nullptr;
}

// --- Making the submission ------------------------------------------------

halo_status_t Submission::resolve_waits() noexcept {
  for (size_t i = 0; i < wait_count(); ++i) {
    halo_semaphore_t* semaphore = wait(i).semaphore;
    const uint64_t value = wait(i).value;
    uint64_t current = 0;
    halo_status_t status =
        sdk::semaphore_vtable(semaphore)->query(semaphore, &current);
    if (status == HALO_OK && current >= value) {
      set_native(i);  // Reached: nothing to wait for.
      continue;
    }
    host().free(status);
    Semaphore* own = Semaphore::from(semaphore);
    // Work on imported memory never waits on another submission's event,
    // which may still be behind that submission's gate (see the top of
    // submission.hpp).
    if (status == HALO_OK && own != nullptr && external_count_ == 0 &&
        own->context == device_->context()) {
      // Borrowed: its signaller is held until this submission's commands
      // are enqueued, which keeps its event alive without a retain and a
      // release of the event per link.
      DeviceSignal* signal =
          own->device_signals.hold_lowest_issued(device_->context(), value);
      if (signal != nullptr) {
        // Every signal source is a submission; an issued one has its
        // number (issue stores it before it marks itself issued).
        const auto* signaller = static_cast<const Submission*>(signal->source);
        if (signaller->queue_ == queue_) {
          covers_ = std::max(covers_, signaller->issue_number_);
        }
        chained_[chained_count_] = signal->event;
        chained_sources_[chained_count_++] = signal->source;
        chained_waits_[i] = true;
        set_native(i);
        continue;
      }
    }
    // Failed semaphores stay host-side too: their timepoint fails at once.
    has_host_waits_ = true;
  }
  if (!has_host_waits_) return HALO_OK;
  // Enqueued only once the host waits are reached, maybe long after: a
  // signaller held that long would keep finished work, and a wait_idle
  // behind it, waiting on this submission's host waits. A reference of
  // its own instead.
  for (size_t i = 0; i < chained_count_; ++i) {
    SignalSource* source = chained_sources_[i];
    if (source == nullptr) continue;
    HALO_CL_RETURN_IF_ERROR(host(), "clRetainEvent",
                            api_->clRetainEvent(chained_[i]));
    chained_sources_[i] = nullptr;
    source->drop();
  }
  return HALO_OK;
}

halo_status_t Submission::enqueue_work() {
  halo_status_t status = enqueue_commands();
  // OpenCL keeps what a wait list names alive itself once a command waits
  // on it.
  release_chained();
  return status;
}

halo_status_t Submission::enqueue_commands() {
  size_t commands = 0;
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    commands += CommandBuffer::cast(command_buffer(i))->enqueue_count;
  }
  cl_int code = CL_SUCCESS;
  // The gate keeps a half-enqueued submission from running when a later
  // enqueue fails; a single enqueue cannot be half done, so a submission of
  // at most one command (such as a link of a device-side chain) goes
  // without: one user event and its status change fewer per submission.
  if (commands > 1) {
    gate_ = api_->clCreateUserEvent(device_->context(), &code);
    HALO_CL_RETURN_IF_ERROR(host(), "clCreateUserEvent", code);
  }
  // The chained events stay the submission's (enqueue_work lets go of
  // them); the wait list borrows them.
  EventList deps(host(), api_);
  for (size_t i = 0; i < chained_count_; ++i) deps.push_borrowed(chained_[i]);
  if (gate_ != nullptr) {
    api_->clRetainEvent(gate_);
    deps.push(gate_);
  }
  if (external_count_ > 0) {
    cl_event acquired = nullptr;
    HALO_CL_RETURN_IF_ERROR(
        host(), "clEnqueueAcquireExternalMemObjectsKHR",
        device_->description->acquire_external(
            device_->cl_queue, static_cast<cl_uint>(external_count_), external_,
            0, nullptr, &acquired));
    external_acquired_ = true;
    // Kept for a release made apart from the commands (enqueue_release).
    api_->clRetainEvent(acquired);
    acquired_ = acquired;
    deps.push(acquired);
  }
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    HALO_SDK_RETURN_IF_ERROR(CommandBuffer::cast(command_buffer(i))
                                 ->enqueue(device_->cl_queue, &deps));
  }
  if (external_acquired_ && release_behind(deps)) return HALO_OK;
  return device_->join(&deps, &completion_);
}

bool Submission::release_behind(const EventList& commands) {
  // Every command is in: nothing half enqueued can run now, and the gate
  // must be open before the release, which NVIDIA's driver would block in
  // while a user event in its wait list is not complete.
  if (gate_ != nullptr) {
    release_error_ = set_event_status(api_, gate_, CL_COMPLETE);
    if (release_error_ != CL_SUCCESS) return false;
    api_->clReleaseEvent(gate_);
    gate_ = nullptr;
  }
  cl_event released = nullptr;
  release_error_ = device_->description->release_external(
      device_->cl_queue, static_cast<cl_uint>(external_count_), external_,
      commands.size(), commands.data(), &released);
  // The commands may run: released once they have ended instead
  // (on_work_done).
  if (release_error_ != CL_SUCCESS) return false;
  external_acquired_ = false;
  completion_ = released;
  return true;
}

halo_status_t Submission::prepare() noexcept {
  HALO_SDK_RETURN_IF_ERROR(resolve_waits());
  return HALO_SDK_TRY(host(), {
    // Work that waits on the host is enqueued only once its waits are
    // reached, on every queue: OpenCL lets an implementation run even an
    // out-of-order queue in order, and then a command held back by the host
    // would hold back every command enqueued after it, among them the one
    // whose completion it waits for (wait before signal).
    if (has_host_waits_) return HALO_OK;
    return enqueue_work();
  });
}

void Submission::abandon() noexcept {
  if (gate_ != nullptr) set_event_status(api_, gate_, kGateFailed);
  // Nothing behind the failed gate touches the memory: hand it back now.
  if (external_acquired_) enqueue_release();
}

void Submission::link_signals() noexcept {
  // Landed after the release of external memory instead (see the top of
  // submission.hpp).
  if (external_acquired_) return;
  for (size_t i = 0; i < signal_count(); ++i) {
    Semaphore* own = Semaphore::from(this->signal(i).semaphore);
    if (own == nullptr || own->context != device_->context()) continue;
    DeviceSignal& signal = device_signals_[i];
    signal.value = this->signal(i).value;
    signal.index = i;
    signal.context = device_->context();
    signal.event = completion_;
    signal.issued = &issued_;
    signal.source = this;
    own->device_signals.link(&signal);
    // Landed through the semaphore's device signals, not by the SDK.
    this->signal(i).native = true;
  }
}

void Submission::unlink_signals() noexcept {
  for (size_t i = 0; i < signal_count(); ++i) {
    if (!signal(i).native) continue;
    // A signal another thread has taken on to land is unlinked by it.
    Semaphore::cast(signal(i).semaphore)
        ->device_signals.unlink(&device_signals_[i]);
    signal(i).native = false;
  }
}

void Submission::start() noexcept {
  if (completion_ != nullptr) link_signals();
  // When it is not ready at once, a timepoint callback fires it, and may
  // free it at once: touch nothing more.
  if (register_waits(&Submission::on_ready)) fire();
}

void Submission::on_ready(sdk::Submission* submission) noexcept {
  static_cast<Submission*>(submission)->fire();
}

// --- Becoming ready -----------------------------------------------------

void Submission::fire() noexcept {
  if (failure() == HALO_OK) {
    if (completion_ == nullptr) {
      // Work that waited on the host (see prepare): enqueue it now.
      // Enqueues never block, so this may run inside a callback.
      halo_status_t status = sdk::guard(host(), [&] { return enqueue_work(); });
      if (status != HALO_OK) {
        record_failure(status);
        abandon();
        drop();
        return;
      }
      link_signals();
    }
    issue();
    return;
  }
  // A wait failed: nothing enqueued may run. The worker fails the signals.
  abandon();
  drop();
}

void Submission::issue() noexcept {
  issue_number_ = queue_->next_issue_number();
  issued_.store(true, std::memory_order_release);
  const Api* api = api_;
  const sdk::Host host = this->host();
  // Our own reference for opening the gate: once the work may complete, the
  // worker may release the submission's references.
  cl_event gate = gate_;
  if (gate != nullptr) api->clRetainEvent(gate);
  if (queue_->polls_completion()) {
    issued_at_ = std::chrono::steady_clock::now();
    handed_over_issued_ = true;
    if (covers_ != 0) queue_->note_covering(issue_number_, covers_);
    queue_->post_issued(this);
  } else if (cl_int code = register_callback(); code != CL_SUCCESS) {
    issued_.store(false, std::memory_order_release);
    record_failure(cl_status(host, "clSetEventCallback", code));
    if (gate != nullptr) {
      set_event_status(api, gate, kGateFailed);
      api->clReleaseEvent(gate);
    }
    drop();
    return;
  }
  if (gate != nullptr) {
    // Nothing to fall back on if this fails: the submission cannot complete.
    cl_int code = set_event_status(api, gate, CL_COMPLETE);
    if (code != CL_SUCCESS) {
      host.log(HALO_LOG_LEVEL_ERROR,
               "clSetUserEventStatus failed: %s (%d); a queue submission "
               "will never complete",
               error_name(code), static_cast<int>(code));
    }
    api->clReleaseEvent(gate);
  }
}

cl_int Submission::register_callback() noexcept {
  // Locals and our own event reference: the callback may run, and the
  // worker free the submission, before clSetEventCallback returns.
  const Api* api = api_;
  cl_event completion = completion_;
  api->clRetainEvent(completion);
  cl_int code = api->clSetEventCallback(completion, CL_COMPLETE,
                                        &Submission::on_complete, this);
  api->clReleaseEvent(completion);
  return code;
}

cl_int Submission::execution_status() noexcept {
  cl_int status = CL_QUEUED;
  cl_int code =
      api_->clGetEventInfo(completion_, CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof(status), &status, nullptr);
  return code == CL_SUCCESS ? status : code;
}

bool Submission::finished(cl_int* out_status) noexcept {
  if (seen_complete_.load(std::memory_order_acquire)) {
    *out_status = CL_COMPLETE;
    return true;
  }
  // A host thread blocked on this event (await_work) sees it finish as soon
  // as anyone; querying meanwhile only contends with it for the driver's
  // locks. Its drop ends the hold.
  if (holders_.load(std::memory_order_acquire) > 1) return false;
  *out_status = execution_status();
  return *out_status <= CL_COMPLETE;
}

Submission::PollEnd Submission::poll_completion(
    std::chrono::microseconds poll_for, bool may_be_overtaken) noexcept {
  const auto overtaken = [&] {
    return may_be_overtaken && queue_->overtakes(issue_number_);
  };
  // No clFlush first: on NVIDIA's driver a flush per submission from this
  // thread, beside the submitting one, cost more than polling saved
  // (bench/README.md).
  // Nor a query of work too young to have finished: it would only contend
  // with the submitting thread's next call into the driver. A link of a
  // chain waits longer, as the next link, whose end shows this one's, is
  // likely to come first.
  const auto first_poll =
      issued_at_ + (covers_ != 0 ? kFirstPollInChain : kFirstPollAfterIssue);
  while (std::chrono::steady_clock::now() < first_poll) {
    if (overtaken()) return PollEnd::kOvertaken;
    sdk::cpu_pause();
  }
  bool stopped = false;
  const bool finished_in_time = sdk::spin_until(poll_for, kPollInterval, [&] {
    if (overtaken()) return stopped = true;
    return finished(&polled_status_);
  });
  if (stopped) return PollEnd::kOvertaken;
  return finished_in_time ? PollEnd::kFinished : PollEnd::kOutlasted;
}

void Submission::begin_long_poll() noexcept {
  flush_if_held(execution_status());
}

void Submission::flush_if_held(cl_int status) noexcept {
  // An implementation may hold enqueued commands back until their queue is
  // flushed (they read CL_QUEUED meanwhile); commands it has handed to the
  // device, or that ended, need none. So the worker flushes only for work
  // still held, and once: on NVIDIA's driver every clFlush woke a driver
  // thread that then spun beside the caller's enqueues (bench/README.md,
  // "A flush only for work not submitted"). A failed query flushes too.
  if (flushed_ || status == CL_SUBMITTED || status == CL_RUNNING ||
      status == CL_COMPLETE) {
    return;
  }
  flushed_ = true;
  api_->clFlush(device_->cl_queue);
}

std::chrono::nanoseconds Submission::poll_long(
    std::chrono::steady_clock::time_point now) noexcept {
  if (poll_interval_.count() == 0) {
    // Just became the oldest: asked at once.
    poll_interval_ = kPollInterval * 2;
    polled_since_ = now;
  } else if (now < next_poll_) {
    return next_poll_ - now;
  }
  // Not asked while another thread holds it (finished): nothing to flush
  // for until it is.
  cl_int status = CL_SUBMITTED;
  if (finished(&status)) {
    polled_status_ = status;
    return std::chrono::nanoseconds(0);
  }
  // Joining did not settle it for every submission: of a run only the
  // newest was asked, and that question may have failed. So work found
  // held here is flushed too.
  flush_if_held(status);
  // Each interval a quarter longer, so that the work is seen finished at
  // most about a quarter of its time late; past 100 ms (a hung device, a
  // very long kernel) up to 10 ms, so that such work costs the worker few
  // wake-ups.
  const std::chrono::nanoseconds longest =
      now - polled_since_ < kLongPollPatience ? kLongestPollInterval
                                              : kLongestPatientPollInterval;
  poll_interval_ = std::min(longest, poll_interval_ + poll_interval_ / 4);
  next_poll_ = now + poll_interval_;
  return poll_interval_;
}

void Submission::land_polled() noexcept {
  on_work_done(polled_status_);
  drop();
}

// --- Completion --------------------------------------------------------------

halo_status_t Submission::chained_failure() noexcept {
  for (size_t i = 0; i < wait_count(); ++i) {
    if (!chained_waits_[i]) continue;
    uint64_t value = 0;
    halo_semaphore_t* semaphore = wait(i).semaphore;
    halo_status_t status =
        sdk::semaphore_vtable(semaphore)->query(semaphore, &value);
    if (status != HALO_OK) return status;
  }
  return HALO_OK;
}

void CL_CALLBACK Submission::on_complete(cl_event, cl_int status,
                                         void* user_data) {
  sdk::pin_library_to_current_thread();
  auto* self = static_cast<Submission*>(user_data);
  self->on_work_done(status);
  self->drop();
}

void Submission::hold() noexcept {
  holders_.fetch_add(1, std::memory_order_relaxed);
}

void Submission::drop() noexcept {
  if (holders_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    queue_->post_finished(this);
  }
}

bool Submission::await_work() noexcept {
  // The completion event is held until the worker finishes the submission,
  // which cannot happen while this thread holds it.
  if (api_->clWaitForEvents(1, &completion_) != CL_SUCCESS) return false;
  cl_int status = CL_QUEUED;
  if (api_->clGetEventInfo(completion_, CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof(status), &status, nullptr) != CL_SUCCESS ||
      status != CL_COMPLETE) {
    return false;
  }
  // The worker's poll need not ask the driver again.
  seen_complete_.store(true, std::memory_order_release);
  return true;
}

void Submission::signal_all() noexcept {
  // Every device signal is made READY before any lands: a callback runs
  // holding its event's lock on some implementations, and a lander checks
  // the events of signals still PENDING (see device_signals.hpp).
  for (size_t i = 0; i < signal_count(); ++i) {
    if (!signal(i).native) continue;
    Semaphore::cast(signal(i).semaphore)
        ->device_signals.mark_ready(&device_signals_[i]);
  }
  for (size_t i = 0; i < signal_count(); ++i) {
    halo_semaphore_t* semaphore = signal(i).semaphore;
    if (signal(i).native) {
      Semaphore::cast(semaphore)->device_signals.land_ready(semaphore);
    }
  }
  signal_host_signals();
}

void Submission::on_work_done(cl_int status) noexcept {
  // A chained wait's semaphore may have been failed by the host while its
  // signaller ran: the signals fail all the same.
  halo_status_t failure = chained_failure();
  if (external_acquired_) {
    // The release could not be made behind the commands (release_behind):
    // made now, and the signals fail, as nothing ordered the memory's
    // hand-back before their waiters.
    enqueue_release();
    if (failure == HALO_OK) {
      failure = host().make_status(
          status_code_for(release_error_),
          "imported device memory could not be released behind a queue "
          "submission's commands: %s (%d)",
          error_name(release_error_), static_cast<int>(release_error_));
    }
  } else if (external_count_ > 0 && status < 0) {
    // Failed work (or a failed release): a release behind failed commands
    // does not run, so the memory goes back now.
    enqueue_release();
  }
  if (failure == HALO_OK && status < 0) {
    failure = host().make_status(status_code_for(status),
                                 "the device work of a queue submission "
                                 "failed: %s (%d)",
                                 error_name(status), static_cast<int>(status));
  }
  if (failure != HALO_OK) {
    fail_signals(failure);
    record_failure(failure);
  } else {
    signal_all();
  }
  signalled_ = true;
  unlink_signals();
}

void Submission::enqueue_release() noexcept {
  external_acquired_ = false;
  // The commands have ended, or will never run; the release only follows
  // the acquire, which waits on nothing (so NVIDIA's driver does not block
  // in it), where an out-of-order queue would otherwise let it run first.
  const cl_uint waits = acquired_ != nullptr ? 1 : 0;
  if (device_->description->release_external(
          device_->cl_queue, static_cast<cl_uint>(external_count_), external_,
          waits, waits != 0 ? &acquired_ : nullptr, nullptr) == CL_SUCCESS) {
    api_->clFlush(device_->cl_queue);
  }
}

void Submission::finish() noexcept {
  // Acquired for work that never ran, or whose completion was never seen.
  if (external_acquired_) enqueue_release();
  finish_waits();
  if (!signalled_) {
    // A wait failed (or the hand-off did): nothing ran.
    if (failure() != HALO_OK) fail_signals(failure());
    unlink_signals();
  }
  release_events();
  release_resources();
}

}  // namespace halo::cl
