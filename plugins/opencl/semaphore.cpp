// The opencl semaphore: vtable and blocking host waits.
#include "semaphore.hpp"

#include "submission.hpp"

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
  Semaphore* self = Semaphore::cast(semaphore);
  // Only a wait without a deadline may block on an event: clWaitForEvents
  // takes no timeout.
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE &&
      self->timeline.payload() < value) {
    self->await_device_signal(value);
  }
  return self->timeline.wait(value, deadline);
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

Semaphore::Semaphore(sdk::Host host, const Api* api, halo_device_t* device,
                     cl_context context, uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable)),
      host(host),
      api(api),
      device(device),
      context(context),
      timeline(host, initial_value),
      device_signals(host, api) {
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

void Semaphore::await_device_signal(uint64_t value) noexcept {
  DeviceSignal* signal = device_signals.hold_lowest_issued(context, value);
  if (signal == nullptr) return;
  Submission* submission = signal->submission;
  if (submission->await_work()) {
    device_signals.mark_ready(signal);
    device_signals.land_ready(handle());
  }
  submission->drop();
}

halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept {
  // Waiting for all without a deadline: each value an issued submission
  // will reach is awaited on its event first (see await_device_signal).
  if (mode == HALO_WAIT_MODE_ALL && deadline == HALO_DEADLINE_INFINITE_FUTURE) {
    for (size_t i = 0; i < count; ++i) {
      Semaphore* semaphore = Semaphore::cast(semaphores[i]);
      if (semaphore->timeline.payload() < values[i]) {
        semaphore->await_device_signal(values[i]);
      }
    }
  }
  return sdk::wait_timelines(host, mode, count, semaphores, values, deadline,
                             [](halo_semaphore_t* semaphore) noexcept
                                 -> sdk::WaitableTimeline& {
                               return Semaphore::cast(semaphore)->timeline;
                             });
}

}  // namespace halo::cl
