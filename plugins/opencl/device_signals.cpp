// The pending device signals of an opencl semaphore: chaining lookups and
// landing in order (see device_signals.hpp).
#include "device_signals.hpp"

#include "halo/sdk/queue_signal.hpp"

namespace halo::cl {
namespace {

using State = DeviceSignal::State;

}  // namespace

void DeviceSignals::link(DeviceSignal* signal) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  signal->state = State::kPending;
  signal->lower_checked = false;
  // After the last signal whose value is not above this one's.
  DeviceSignal* after = tail_;
  while (after != nullptr && after->value > signal->value) after = after->previous;
  signal->previous = after;
  signal->next = after != nullptr ? after->next : head_;
  if (signal->next != nullptr) {
    signal->next->previous = signal;
  } else {
    tail_ = signal;
  }
  if (after != nullptr) {
    after->next = signal;
  } else {
    head_ = signal;
  }
}

void DeviceSignals::remove(DeviceSignal* signal) noexcept {
  if (signal->previous != nullptr) {
    signal->previous->next = signal->next;
  } else {
    head_ = signal->next;
  }
  if (signal->next != nullptr) {
    signal->next->previous = signal->previous;
  } else {
    tail_ = signal->previous;
  }
  signal->previous = signal->next = nullptr;
  signal->state = State::kDone;
}

void DeviceSignals::unlink(DeviceSignal* signal) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (signal->state == State::kPending) remove(signal);
}

DeviceSignal* DeviceSignals::lowest_issued(cl_context context,
                                           uint64_t value) noexcept {
  // From the highest value down to |value|: the last match is the lowest.
  DeviceSignal* best = nullptr;
  for (DeviceSignal* signal = tail_;
       signal != nullptr && signal->value >= value;
       signal = signal->previous) {
    if (signal->context != context) continue;
    if (!signal->issued->load(std::memory_order_acquire)) continue;
    best = signal;
  }
  return best;
}

DeviceSignal* DeviceSignals::hold_lowest_issued(cl_context context,
                                                uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceSignal* signal = lowest_issued(context, value);
  // Held under the lock: a linked issued signal's submission has not let go
  // of itself yet (its owner unlinks a PENDING signal first, and the lander
  // holds a READY one), so it is alive here.
  if (signal != nullptr) signal->source->hold();
  return signal;
}

cl_event DeviceSignals::find_event(cl_context context,
                                   uint64_t value) noexcept {
  DeviceSignal* signal = hold_lowest_issued(context, value);
  if (signal == nullptr) return nullptr;
  // Retained without the lock (see the file comment); the hold keeps the
  // event alive until then.
  cl_event event = signal->event;
  const bool retained = api_->clRetainEvent(event) == CL_SUCCESS;
  signal->source->drop();
  return retained ? event : nullptr;
}

void DeviceSignals::make_ready(DeviceSignal* signal) noexcept {
  signal->state = State::kReady;
  signal->lower_checked = false;
  ++ready_count_;
  signal->source->hold();
}

void DeviceSignals::mark_ready(DeviceSignal* signal) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (signal->state == State::kPending) make_ready(signal);
}

DeviceSignal* DeviceSignals::lowest_ready() noexcept {
  if (ready_count_ == 0) return nullptr;
  // READY signals stay linked until landed, so one is found.
  DeviceSignal* signal = head_;
  while (signal->state != State::kReady) signal = signal->next;
  return signal;
}

void DeviceSignals::check_lower(DeviceSignal* lowest,
                                std::unique_lock<std::mutex>& lock) noexcept {
  lowest->lower_checked = true;
  // The PENDING issued signals below |lowest|, from the highest down, each
  // held so that its event stays valid while the lock is released.
  DeviceSignal* candidates = nullptr;
  DeviceSignal** last = &candidates;
  for (DeviceSignal* signal = lowest->previous; signal != nullptr;
       signal = signal->previous) {
    if (signal->value == lowest->value || signal->state != State::kPending ||
        !signal->issued->load(std::memory_order_acquire)) {
      continue;
    }
    signal->source->hold();
    signal->next_candidate = nullptr;
    *last = signal;
    last = &signal->next_candidate;
  }
  if (candidates == nullptr) return;
  // From the highest down: work that completed before a higher signal's
  // (seen complete) is seen complete too.
  lock.unlock();
  for (DeviceSignal* signal = candidates; signal != nullptr;
       signal = signal->next_candidate) {
    cl_int status = CL_QUEUED;
    signal->seen_complete =
        api_->clGetEventInfo(signal->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof(status), &status,
                             nullptr) == CL_SUCCESS &&
        status == CL_COMPLETE;
  }
  lock.lock();
  DeviceSignal* unclaimed = nullptr;
  for (DeviceSignal* signal = candidates; signal != nullptr;) {
    DeviceSignal* following = signal->next_candidate;
    if (signal->seen_complete && signal->state == State::kPending) {
      // Its hold becomes the READY signal's hold. The signals below it
      // were checked after it, so they need no second look.
      signal->state = State::kReady;
      signal->lower_checked = true;
      ++ready_count_;
    } else {
      signal->next_candidate = unclaimed;
      unclaimed = signal;
    }
    signal = following;
  }
  if (unclaimed == nullptr) return;
  lock.unlock();
  while (unclaimed != nullptr) {
    DeviceSignal* following = unclaimed->next_candidate;
    unclaimed->source->drop();
    unclaimed = following;
  }
  lock.lock();
}

void DeviceSignals::land(DeviceSignal* signal,
                         halo_semaphore_t* semaphore) noexcept {
  // A semaphore the submission chained on may have been failed by the host
  // while the work ran: its signals fail all the same (as in
  // Submission::on_work_done).
  halo_status_t failure = signal->source->chained_failure();
  if (failure != HALO_OK) {
    sdk::semaphore_vtable(semaphore)->fail(semaphore, failure);
    return;
  }
  sdk::signal_from_queue(host_, semaphore, signal->value, signal->index);
}

void DeviceSignals::land_ready(halo_semaphore_t* semaphore) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  // The lander at work looks for READY signals again before it stops.
  if (landing_) return;
  landing_ = true;
  // The submission of the signal landed last, dropped once the lock is
  // released.
  SignalSource* landed = nullptr;
  for (;;) {
    DeviceSignal* lowest = lowest_ready();
    if (lowest == nullptr) break;
    if (!lowest->lower_checked) {
      // Lower signals it finds complete become READY and land first.
      check_lower(lowest, lock);
      continue;
    }
    lock.unlock();
    if (landed != nullptr) landed->drop();
    land(lowest, semaphore);
    lock.lock();
    remove(lowest);
    --ready_count_;
    landed = lowest->source;
  }
  landing_ = false;
  lock.unlock();
  if (landed != nullptr) landed->drop();
}

}  // namespace halo::cl
