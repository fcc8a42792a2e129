// The cpu semaphore: its vtable over the SDK's futex-backed timeline.
#include "semaphore.hpp"

namespace halo::cpu {
namespace {

// --- The semaphore vtable. Every entry is noexcept C++ that cannot throw,
// --- so none needs a guard.

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

Semaphore::Semaphore(sdk::Host host, halo_device_t* device,
                     uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable)),
      host(host),
      device(device),
      timeline(host, initial_value) {
  host.retain(sdk::as_object(device));
}

Semaphore::~Semaphore() { host.release(sdk::as_object(device)); }

halo_status_t Semaphore::create(sdk::Host host, halo_device_t* device,
                                uint64_t initial_value,
                                halo_semaphore_t** out_semaphore) noexcept {
  if (out_semaphore == nullptr) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "out_semaphore is NULL");
  }
  *out_semaphore = nullptr;
  if (initial_value > HALO_SEMAPHORE_MAX_VALUE) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "initial semaphore value %llu is above HALO_SEMAPHORE_MAX_VALUE",
        static_cast<unsigned long long>(initial_value));
  }
  return sdk::guard(host, [&] {
    *out_semaphore =
        host.make<Semaphore>(host, device, initial_value)->handle();
  });
}

bool Semaphore::is_cpu_semaphore(halo_semaphore_t* semaphore) noexcept {
  return semaphore != nullptr &&
         sdk::as_object(semaphore)->vtable == &kSemaphoreVtable.object;
}

halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept {
  return sdk::wait_timelines(host, mode, count, semaphores, values, deadline,
                             [](halo_semaphore_t* semaphore) noexcept
                                 -> sdk::WaitableTimeline& {
                               return Semaphore::cast(semaphore)->timeline;
                             });
}

}  // namespace halo::cpu
