// The opencl semaphore: vtable, blocking host waits and pending device
// signals.
#include "semaphore.hpp"

#include "halo/sdk/futex.hpp"

namespace halo::cl {
namespace {

// --- The semaphore vtable. The timeline core's entries cannot throw.

void destroy_semaphore(halo_object_t* object) {
  auto* semaphore = reinterpret_cast<Semaphore*>(object);
  sdk::Host host = semaphore->host;
  host.destroy(semaphore);
}

halo_status_t query(halo_semaphore_t* semaphore, uint64_t* out_value) {
  return Semaphore::cast(semaphore)->timeline.query(out_value);
}

halo_status_t signal(halo_semaphore_t* semaphore, uint64_t value) {
  return Semaphore::cast(semaphore)->timeline.signal(value);
}

void fail(halo_semaphore_t* semaphore, halo_status_t status) {
  Semaphore::cast(semaphore)->timeline.fail(status);
}

halo_status_t wait(halo_semaphore_t* semaphore, uint64_t value,
                   halo_time_ns_t deadline) {
  return Semaphore::cast(semaphore)->timeline.wait(value, deadline);
}

halo_status_t acquire_timepoint(halo_semaphore_t* semaphore,
                                halo_timepoint_t* timepoint) {
  return Semaphore::cast(semaphore)->timeline.acquire(timepoint);
}

bool cancel_timepoint(halo_semaphore_t* semaphore,
                      halo_timepoint_t* timepoint) {
  return Semaphore::cast(semaphore)->timeline.cancel(timepoint);
}

halo_device_t* device_of(halo_semaphore_t* semaphore) {
  return Semaphore::cast(semaphore)->device;
}

const halo_semaphore_vtable_t kSemaphoreVtable = {
    {sizeof(halo_semaphore_vtable_t), HALO_OBJECT_TYPE_SEMAPHORE,
     &destroy_semaphore},
    &query,
    &signal,
    &fail,
    &wait,
    &acquire_timepoint,
    &cancel_timepoint,
    &device_of,
};

}  // namespace

halo_status_t WaitableTimeline::settle(uint64_t payload, uint64_t value,
                                       bool* done) noexcept {
  if (payload >= HALO_SEMAPHORE_FAILURE_VALUE) {
    *done = true;
    return clone_failure();
  }
  *done = payload >= value;
  return HALO_OK;
}

halo_status_t WaitableTimeline::wait(uint64_t value,
                                     halo_time_ns_t deadline) noexcept {
  bool done = false;
  halo_status_t result = settle(payload(), value, &done);
  if (done) return result;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) {
    return host().status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
  for (;;) {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
    result = settle(payload(std::memory_order_seq_cst), value, &done);
    bool in_time = done || sdk::futex_wait(&epoch_, epoch, deadline);
    waiters_.fetch_sub(1, std::memory_order_relaxed);
    if (done) return result;
    // The payload decides first: a value that arrived right at the
    // deadline still counts.
    result = settle(payload(), value, &done);
    if (done) return result;
    if (!in_time) return host().status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
}

void WaitableTimeline::on_changed(uint64_t) noexcept {
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  sdk::futex_wake_all(&epoch_);
}

Semaphore::Semaphore(sdk::Host host, const Api* api, halo_device_t* device,
                     cl_context context, uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable)),
      host(host),
      api(api),
      device(device),
      context(context),
      timeline(host, initial_value) {
  host.retain(sdk::as_object(device));
}

Semaphore::~Semaphore() { host.release(sdk::as_object(device)); }

halo_status_t Semaphore::create(sdk::Host host, const Api* api,
                                halo_device_t* device, cl_context context,
                                uint64_t initial_value,
                                halo_semaphore_t** out_semaphore) noexcept {
  if (out_semaphore == nullptr) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "halo_semaphore_create: out_semaphore is "
                                 "NULL");
  }
  *out_semaphore = nullptr;
  if (initial_value > HALO_SEMAPHORE_MAX_VALUE) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "halo_semaphore_create: initial value %llu is above "
        "HALO_SEMAPHORE_MAX_VALUE",
        static_cast<unsigned long long>(initial_value));
  }
  return sdk::guard(host, [&] {
    *out_semaphore =
        host.make<Semaphore>(host, api, device, context, initial_value)
            ->handle();
  });
}

Semaphore* Semaphore::from(halo_semaphore_t* semaphore) noexcept {
  if (semaphore == nullptr ||
      sdk::as_object(semaphore)->vtable != &kSemaphoreVtable.object) {
    return nullptr;
  }
  return cast(semaphore);
}

void Semaphore::link_signal(DeviceSignal* signal) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  // After the last signal whose value is not above this one's.
  DeviceSignal* after = signals_tail_;
  while (after != nullptr && after->value > signal->value) after = after->previous;
  signal->previous = after;
  signal->next = after != nullptr ? after->next : signals_;
  if (signal->next != nullptr) {
    signal->next->previous = signal;
  } else {
    signals_tail_ = signal;
  }
  if (after != nullptr) {
    after->next = signal;
  } else {
    signals_ = signal;
  }
}

void Semaphore::unlink_signal(DeviceSignal* signal) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (signal->previous != nullptr) {
    signal->previous->next = signal->next;
  } else {
    signals_ = signal->next;
  }
  if (signal->next != nullptr) {
    signal->next->previous = signal->previous;
  } else {
    signals_tail_ = signal->previous;
  }
  signal->previous = signal->next = nullptr;
}

cl_event Semaphore::find_signal_event(cl_context wanted_context,
                                      uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  // From the highest value down to |value|: the last match is the lowest.
  DeviceSignal* best = nullptr;
  for (DeviceSignal* signal = signals_tail_;
       signal != nullptr && signal->value >= value;
       signal = signal->previous) {
    if (signal->context != wanted_context) continue;
    if (!signal->issued->load(std::memory_order_acquire)) continue;
    best = signal;
  }
  if (best == nullptr) return nullptr;
  // Retained under the lock: the owner releases its reference only after
  // unlinking.
  if (api->clRetainEvent(best->event) != CL_SUCCESS) return nullptr;
  return best->event;
}

}  // namespace halo::cl
