// The cuda semaphore: the SDK's semaphore vtable over its timeline, and
// the record of what issued work will signal.
#include "semaphore.hpp"

#include "device.hpp"
#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::cuda {

Semaphore::Semaphore(Device* device, uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&sdk::kSemaphoreVtable<Semaphore>)),
      host(device->host),
      device(device),
      timeline(device->host, initial_value) {
  host.retain(sdk::as_object(device->handle()));
}

Semaphore::~Semaphore() { host.release(sdk::as_object(device->handle())); }

halo_status_t Semaphore::create(Device* device, uint64_t initial_value,
                                halo_semaphore_t** out_semaphore) noexcept {
  return sdk::guard(device->host, [&] {
    *out_semaphore =
        device->host.make<Semaphore>(device, initial_value)->handle();
  });
}

Semaphore* Semaphore::from(halo_semaphore_t* semaphore) noexcept {
  return sdk::is_semaphore_of<Semaphore>(semaphore) ? cast(semaphore)
                                                     : nullptr;
}

void Semaphore::note_issued(CUstream stream, uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(issued_mutex_);
  if (issued_stream_ == stream) {
    if (value > issued_value_) issued_value_ = value;
    return;
  }
  // Another stream's issued signal is forgotten: waits for its values then
  // go through timepoints, which is slower but never wrong.
  issued_stream_ = stream;
  issued_value_ = value;
}

bool Semaphore::issued_reaches(CUstream stream, uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(issued_mutex_);
  return issued_stream_ == stream && issued_value_ >= value;
}

halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept {
  // The device's imports for device waits are its semaphores too, but no
  // host can wait on them (device_wait.hpp).
  for (size_t i = 0; i < count; ++i) {
    if (Semaphore::from(semaphores[i]) == nullptr) {
      return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                              "halo_semaphores_wait: semaphores[%zu] was "
                              "imported for device waits only",
                              i);
    }
  }
  return sdk::wait_timelines(host, mode, count, semaphores, values, deadline,
                             [](halo_semaphore_t* semaphore) noexcept
                                 -> sdk::WaitableTimeline& {
                               return Semaphore::cast(semaphore)->timeline;
                             });
}

}  // namespace halo::cuda
