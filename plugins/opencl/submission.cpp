// A queue submission's life: settling waits, enqueueing, completion and
// release (see submission.hpp).
#include "submission.hpp"

#include <limits>
#include <new>

#include "cl_status.hpp"
#include "command_buffer.hpp"
#include "device.hpp"
#include "event_list.hpp"
#include "halo/sdk/library_pin.hpp"
#include "halo/sdk/queue_signal.hpp"
#include "halo/sdk/scheduler.hpp"
#include "queue.hpp"

namespace halo::cl {
namespace {

// The fields of state_.
constexpr uint64_t kFailed = 1;
constexpr uint64_t kRegistering = 2;
constexpr unsigned kWaitShift = 2;
constexpr uint64_t kWaitOne = uint64_t{1} << kWaitShift;

// How a wait was settled.
enum WaitKind : uint8_t { kReached = 0, kChained = 1, kHostSide = 2 };

// The status a failed gate is given: the commands behind it end with it.
constexpr cl_int kGateFailed = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;

size_t align_up(size_t offset, size_t alignment) noexcept {
  return (offset + alignment - 1) & ~(alignment - 1);
}

// Appends |count| elements of T to |*total|; returns their offset. Throws
// std::bad_alloc on absurd counts.
template <class T>
size_t reserve(size_t* total, size_t count) {
  constexpr size_t kLimit = std::numeric_limits<size_t>::max() / 4;
  if (count > kLimit / sizeof(T)) throw std::bad_alloc();
  size_t start = align_up(*total, alignof(T));
  *total = start + count * sizeof(T);
  return start;
}

// Sets user event |event|'s status, holding a reference of its own for the
// call: completing it may run the work behind it, and the callbacks of that
// work may release every other reference before the call returns.
cl_int set_event_status(const Api* api, cl_event event, cl_int status) {
  api->clRetainEvent(event);
  cl_int code = api->clSetUserEventStatus(event, status);
  api->clReleaseEvent(event);
  return code;
}

template <class T>
T* at(void* base, size_t offset) noexcept {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

}  // namespace

// Where create puts each array of the one allocation.
struct Submission::Layout {
  void* allocation = nullptr;
  size_t total = 0;
  size_t wait_semaphores = 0, wait_values = 0, wait_kinds = 0, chained = 0;
  size_t signal_semaphores = 0, signal_values = 0, device_signals = 0;
  size_t signal_linked = 0, command_buffers = 0;
};

Submission* Submission::create(Device* device, Queue* queue,
                               const halo_queue_execute_info_t& info) {
  Layout layout;
  size_t total = sizeof(Submission);
  layout.wait_semaphores = reserve<halo_semaphore_t*>(&total, info.wait_count);
  layout.wait_values = reserve<uint64_t>(&total, info.wait_count);
  layout.wait_kinds = reserve<uint8_t>(&total, info.wait_count);
  layout.chained = reserve<cl_event>(&total, info.wait_count);
  layout.signal_semaphores =
      reserve<halo_semaphore_t*>(&total, info.signal_count);
  layout.signal_values = reserve<uint64_t>(&total, info.signal_count);
  layout.device_signals = reserve<DeviceSignal>(&total, info.signal_count);
  layout.signal_linked = reserve<bool>(&total, info.signal_count);
  layout.command_buffers =
      reserve<halo_command_buffer_t*>(&total, info.command_buffer_count);
  layout.total = total;
  layout.allocation = device->host.allocate(total, alignof(Submission));
  if (layout.allocation == nullptr) throw std::bad_alloc();
  return ::new (layout.allocation) Submission(device, queue, layout, info);
}

Submission::Submission(Device* device, Queue* queue, const Layout& layout,
                       const halo_queue_execute_info_t& info) noexcept
    : host_(device->host),
      api_(device->api),
      device_(device),
      queue_(queue),
      allocation_(layout.allocation),
      wait_count_(info.wait_count),
      wait_semaphores_(at<halo_semaphore_t*>(allocation_, layout.wait_semaphores)),
      wait_values_(at<uint64_t>(allocation_, layout.wait_values)),
      wait_kinds_(at<uint8_t>(allocation_, layout.wait_kinds)),
      signal_count_(info.signal_count),
      signal_semaphores_(
          at<halo_semaphore_t*>(allocation_, layout.signal_semaphores)),
      signal_values_(at<uint64_t>(allocation_, layout.signal_values)),
      device_signals_(at<DeviceSignal>(allocation_, layout.device_signals)),
      signal_linked_(at<bool>(allocation_, layout.signal_linked)),
      command_buffer_count_(info.command_buffer_count),
      command_buffers_(
          at<halo_command_buffer_t*>(allocation_, layout.command_buffers)),
      chained_(at<cl_event>(allocation_, layout.chained)) {
  host_.retain(sdk::as_object(device_->handle()));
  for (size_t i = 0; i < wait_count_; ++i) {
    wait_semaphores_[i] = info.wait_semaphores[i];
    wait_values_[i] = info.wait_values[i];
    wait_kinds_[i] = kReached;
    host_.retain(sdk::as_object(wait_semaphores_[i]));
  }
  for (size_t i = 0; i < signal_count_; ++i) {
    signal_semaphores_[i] = info.signal_semaphores[i];
    signal_values_[i] = info.signal_values[i];
    ::new (&device_signals_[i]) DeviceSignal{};
    signal_linked_[i] = false;
    host_.retain(sdk::as_object(signal_semaphores_[i]));
  }
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    command_buffers_[i] = info.command_buffers[i];
    host_.retain(sdk::as_object(command_buffers_[i]));
  }
}

Submission::~Submission() {
  release_resources();
  host_.free(failure_.load(std::memory_order_acquire));
  // Possibly the device's last reference: see Queue for why that is safe
  // on the worker thread.
  host_.release(sdk::as_object(device_->handle()));
}

void Submission::destroy(Submission* submission) noexcept {
  if (submission == nullptr) return;
  sdk::Host host = submission->host_;
  void* allocation = submission->allocation_;
  submission->~Submission();
  host.deallocate(allocation);
}

void Submission::release_resources() noexcept {
  if (!holds_references_) return;
  holds_references_ = false;
  while (records_ != nullptr) {
    WaitRecord* record = records_;
    records_ = record->next;
    queue_->pool().release(record);
  }
  for (size_t i = 0; i < chained_count_; ++i) api_->clReleaseEvent(chained_[i]);
  chained_count_ = 0;
  if (gate_ != nullptr) api_->clReleaseEvent(gate_);
  if (completion_ != nullptr) api_->clReleaseEvent(completion_);
  gate_ = completion_ = nullptr;
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    host_.release(sdk::as_object(command_buffers_[i]));
  }
  for (size_t i = 0; i < wait_count_; ++i) {
    host_.release(sdk::as_object(wait_semaphores_[i]));
  }
  for (size_t i = 0; i < signal_count_; ++i) {
    host_.release(sdk::as_object(signal_semaphores_[i]));
  }
}

// --- Making the submission ------------------------------------------------

void Submission::add_host_wait(halo_semaphore_t* semaphore, uint64_t value) {
  WaitRecord* record = queue_->pool().acquire();
  record->submission = this;
  record->semaphore = semaphore;
  record->timepoint.struct_size = sizeof(halo_timepoint_t);
  record->timepoint.value = value;
  record->timepoint.callback = &Submission::on_wait;
  record->timepoint.user_data = record;
  record->next = records_;
  records_ = record;
  ++host_wait_count_;
}

halo_status_t Submission::resolve_waits() {
  for (size_t i = 0; i < wait_count_; ++i) {
    halo_semaphore_t* semaphore = wait_semaphores_[i];
    const uint64_t value = wait_values_[i];
    uint64_t current = 0;
    halo_status_t status =
        sdk::semaphore_vtable(semaphore)->query(semaphore, &current);
    if (status == HALO_OK && current >= value) continue;  // kReached.
    host_.free(status);
    Semaphore* own = Semaphore::from(semaphore);
    if (status == HALO_OK && own != nullptr &&
        own->context == device_->context()) {
      cl_event event =
          own->device_signals.find_event(device_->context(), value);
      if (event != nullptr) {
        chained_[chained_count_++] = event;
        wait_kinds_[i] = kChained;
        continue;
      }
    }
    // Failed semaphores land here too: their timepoint fails at once.
    add_host_wait(semaphore, value);
    wait_kinds_[i] = kHostSide;
  }
  return HALO_OK;
}

halo_status_t Submission::enqueue_work() {
  size_t commands = 0;
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    commands += CommandBuffer::cast(command_buffers_[i])->enqueue_count;
  }
  cl_int code = CL_SUCCESS;
  // The gate keeps a half-enqueued submission from running when a later
  // enqueue fails; a single enqueue cannot be half done, so a submission of
  // at most one command (such as a link of a device-side chain) goes
  // without: one user event and its status change fewer per submission.
  if (commands > 1) {
    gate_ = api_->clCreateUserEvent(device_->context(), &code);
    HALO_CL_RETURN_IF_ERROR(host_, "clCreateUserEvent", code);
  }
  EventList deps(host_, api_);
  for (size_t i = 0; i < chained_count_; ++i) {
    api_->clRetainEvent(chained_[i]);
    deps.push(chained_[i]);
  }
  if (gate_ != nullptr) {
    api_->clRetainEvent(gate_);
    deps.push(gate_);
  }
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    HALO_SDK_RETURN_IF_ERROR(CommandBuffer::cast(command_buffers_[i])
                                 ->enqueue(device_->queue, &deps));
  }
  return device_->join(deps.size(), deps.data(), &completion_);
}

halo_status_t Submission::prepare() noexcept {
  return HALO_SDK_TRY(host_, {
    HALO_SDK_RETURN_IF_ERROR(resolve_waits());
    // Work that waits on the host is enqueued only once its waits are
    // reached, on every queue: OpenCL lets an implementation run even an
    // out-of-order queue in order, and then a command held back by the host
    // would hold back every command enqueued after it, among them the one
    // whose completion it waits for (wait before signal).
    if (host_wait_count_ > 0) return HALO_OK;
    return enqueue_work();
  });
}

void Submission::abandon() noexcept {
  if (gate_ != nullptr) set_event_status(api_, gate_, kGateFailed);
}

void Submission::link_signals() noexcept {
  for (size_t i = 0; i < signal_count_; ++i) {
    Semaphore* own = Semaphore::from(signal_semaphores_[i]);
    if (own == nullptr || own->context != device_->context()) continue;
    DeviceSignal& signal = device_signals_[i];
    signal.value = signal_values_[i];
    signal.index = i;
    signal.context = device_->context();
    signal.event = completion_;
    signal.issued = &issued_;
    signal.submission = this;
    own->device_signals.link(&signal);
    signal_linked_[i] = true;
  }
}

void Submission::unlink_signals() noexcept {
  for (size_t i = 0; i < signal_count_; ++i) {
    if (!signal_linked_[i]) continue;
    // A signal another thread has taken on to land is unlinked by it.
    Semaphore::cast(signal_semaphores_[i])
        ->device_signals.unlink(&device_signals_[i]);
    signal_linked_[i] = false;
  }
}

void Submission::start() noexcept {
  if (completion_ != nullptr) link_signals();
  if (host_wait_count_ == 0) {
    issue();
    return;
  }
  state_.store((host_wait_count_ << kWaitShift) | kRegistering,
               std::memory_order_release);
  for (WaitRecord* record = records_; record != nullptr;
       record = record->next) {
    halo_semaphore_t* semaphore = record->semaphore;
    halo_status_t status = sdk::semaphore_vtable(semaphore)->acquire_timepoint(
        semaphore, &record->timepoint);
    if (status != HALO_OK) {
      // Its callback will never run: settle it here. Nothing fires while
      // REGISTERING is set.
      record_failure(host_.annotate(status, "register wait timepoint"));
      record->done.store(1, std::memory_order_release);
      settle(kWaitOne, kFailed);
    }
  }
  // Ending registration may make the submission ready; if it does not, a
  // callback will, and may free it at once: touch nothing more.
  if (settle(kRegistering, 0)) fire();
}

// --- Becoming ready ------------------------------------------------------------

bool Submission::settle(uint64_t remove, uint64_t add) noexcept {
  auto ready = [](uint64_t state) {
    return (state & kRegistering) == 0 &&
           ((state >> kWaitShift) == 0 || (state & kFailed) != 0);
  };
  uint64_t old_state = state_.load(std::memory_order_acquire);
  uint64_t new_state;
  do {
    new_state = (old_state - remove) | add;
  } while (!state_.compare_exchange_weak(old_state, new_state,
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire));
  return !ready(old_state) && ready(new_state);
}

void Submission::record_failure(halo_status_t status) noexcept {
  halo_status_t expected = nullptr;
  if (!failure_.compare_exchange_strong(expected, status,
                                        std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    host_.free(status);  // The first failure wins.
  }
}

void Submission::fire() noexcept {
  if ((state_.load(std::memory_order_acquire) & kFailed) == 0) {
    if (completion_ == nullptr) {
      // Work that waited on the host (see prepare): enqueue it now.
      // Enqueues never block, so this may run inside a callback.
      halo_status_t status = sdk::guard(host_, [&] { return enqueue_work(); });
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
  issued_.store(true, std::memory_order_release);
  const Api* api = api_;
  const sdk::Host host = host_;
  cl_event gate = gate_;
  cl_event completion = completion_;
  // Our own references for the calls below: once the callback may run, the
  // worker may release the submission's references while OpenCL is still
  // inside these calls.
  api->clRetainEvent(completion);
  // Registered while the gate (if any) still holds the work back, so it
  // cannot run before this returns; without a gate it may run at once.
  cl_int code = api->clSetEventCallback(completion, CL_COMPLETE,
                                        &Submission::on_complete, this);
  if (code != CL_SUCCESS) {
    api->clReleaseEvent(completion);
    issued_.store(false, std::memory_order_release);
    record_failure(cl_status(host_, "clSetEventCallback", code));
    if (gate != nullptr) set_event_status(api, gate, kGateFailed);
    drop();
    return;
  }
  if (gate != nullptr) {
    // Nothing to fall back on if this fails: the submission cannot complete.
    code = set_event_status(api, gate, CL_COMPLETE);
    if (code != CL_SUCCESS) {
      host.log(HALO_LOG_LEVEL_ERROR,
               "clSetUserEventStatus failed: %s (%d); a queue submission "
               "will never complete",
               error_name(code), static_cast<int>(code));
    }
  }
  api->clReleaseEvent(completion);
}

void Submission::on_wait(void* user_data, halo_timepoint_t*,
                         halo_status_t status) noexcept {
  // The worker may release the plugin's last object while this thread is
  // still on its way out of the callback.
  sdk::pin_library_to_current_thread();
  auto* record = static_cast<WaitRecord*>(user_data);
  Submission* self = record->submission;
  const bool failed = status != HALO_OK;
  if (failed) self->record_failure(status);
  if (self->settle(kWaitOne, failed ? kFailed : 0)) self->fire();
  // The last touch: the worker cancels every record not marked done, and a
  // cancel waits for a callback still running, so the submission outlives
  // this store.
  record->done.store(1, std::memory_order_release);
}

// --- Completion --------------------------------------------------------------

halo_status_t Submission::chained_failure() noexcept {
  for (size_t i = 0; i < wait_count_; ++i) {
    if (wait_kinds_[i] != kChained) continue;
    uint64_t value = 0;
    halo_semaphore_t* semaphore = wait_semaphores_[i];
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
  self->complete(status);
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
  return api_->clGetEventInfo(completion_, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof(status), &status,
                              nullptr) == CL_SUCCESS &&
         status == CL_COMPLETE;
}

void Submission::signal_all() noexcept {
  // Every device signal is made READY before any lands: a callback runs
  // holding its event's lock on some implementations, and a lander checks
  // the events of signals still PENDING (see device_signals.hpp).
  for (size_t i = 0; i < signal_count_; ++i) {
    if (!signal_linked_[i]) continue;
    Semaphore::cast(signal_semaphores_[i])
        ->device_signals.mark_ready(&device_signals_[i]);
  }
  for (size_t i = 0; i < signal_count_; ++i) {
    halo_semaphore_t* semaphore = signal_semaphores_[i];
    if (signal_linked_[i]) {
      Semaphore::cast(semaphore)->device_signals.land_ready(semaphore);
    } else {
      sdk::signal_from_queue(host_, semaphore, signal_values_[i], i);
    }
  }
}

void Submission::complete(cl_int status) noexcept {
  // A chained wait's semaphore may have been failed by the host while its
  // signaller ran: the signals fail all the same.
  halo_status_t failure = chained_failure();
  if (failure == HALO_OK && status < 0) {
    failure = host_.make_status(status_code_for(status),
                                "the device work of a queue submission "
                                "failed: %s (%d)",
                                error_name(status), static_cast<int>(status));
  }
  sdk::SemaphoreList signals{signal_count_, signal_semaphores_,
                             signal_values_};
  if (failure != HALO_OK) {
    sdk::fail_semaphores(host_, signals, failure);
    record_failure(failure);
  } else {
    signal_all();
  }
  signalled_ = true;
  unlink_signals();
}

void Submission::finish() noexcept {
  for (WaitRecord* record = records_; record != nullptr;
       record = record->next) {
    if (record->done.load(std::memory_order_acquire) != 0) continue;
    // Race-free by contract: on return the callback either ran to
    // completion or never will.
    sdk::semaphore_vtable(record->semaphore)
        ->cancel_timepoint(record->semaphore, &record->timepoint);
  }
  if (!signalled_) {
    halo_status_t failure = failure_.load(std::memory_order_acquire);
    sdk::SemaphoreList signals{signal_count_, signal_semaphores_,
                               signal_values_};
    if (failure != HALO_OK) sdk::fail_semaphores(host_, signals, failure);
    unlink_signals();
  }
  release_resources();
}

}  // namespace halo::cl
