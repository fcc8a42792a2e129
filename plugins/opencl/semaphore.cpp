// The opencl semaphore: the SDK's semaphore vtable over its timeline, and
// blocking host waits that may land a device signal early.
#include "semaphore.hpp"

#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::cl {

Semaphore::Semaphore(sdk::Host host, const Api* api, halo_device_t* device,
                     cl_context context, uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&sdk::kSemaphoreVtable<Semaphore>)),
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
  return sdk::guard(host, [&] {
    *out_semaphore =
        host.make<Semaphore>(host, api, device, context, initial_value)
            ->handle();
  });
}

Semaphore* Semaphore::from(halo_semaphore_t* semaphore) noexcept {
  return sdk::is_semaphore_of<Semaphore>(semaphore) ? cast(semaphore)
                                                     : nullptr;
}

halo_status_t Semaphore::wait(uint64_t value,
                              halo_time_ns_t deadline) noexcept {
  // Only a wait without a deadline may block on an event: clWaitForEvents
  // takes no timeout.
  if (deadline == HALO_DEADLINE_INFINITE_FUTURE &&
      timeline.payload() < value) {
    await_device_signal(value);
  }
  return timeline.wait(value, deadline);
}

void Semaphore::await_device_signal(uint64_t value) noexcept {
  DeviceSignal* signal = device_signals.hold_lowest_issued(context, value);
  if (signal == nullptr) return;
  SignalSource* source = signal->source;
  if (source->await_work()) {
    device_signals.mark_ready(signal);
    device_signals.land_ready(handle());
  }
  source->drop();
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
