// The cpu semaphore: the SDK's semaphore vtable over its futex-backed
// timeline.
#include "semaphore.hpp"

#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::cpu {

Semaphore::Semaphore(sdk::Host host, halo_device_t* device,
                     uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&sdk::kSemaphoreVtable<Semaphore>)),
      host(host),
      device(device),
      timeline(host, initial_value) {
  host.retain(sdk::as_object(device));
}

Semaphore::~Semaphore() { host.release(sdk::as_object(device)); }

halo_status_t Semaphore::create(sdk::Host host, halo_device_t* device,
                                uint64_t initial_value,
                                halo_semaphore_t** out_semaphore) noexcept {
  return sdk::guard(host, [&] {
    *out_semaphore =
        host.make<Semaphore>(host, device, initial_value)->handle();
  });
}

bool Semaphore::is_cpu_semaphore(halo_semaphore_t* semaphore) noexcept {
  return sdk::is_semaphore_of<Semaphore>(semaphore);
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
