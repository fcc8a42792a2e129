#include "halo/sdk/host_semaphore.hpp"

#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::sdk {

HostSemaphore::HostSemaphore(Host host, halo_device_t* device,
                             uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable<HostSemaphore>)),
      host(host),
      device(device),
      timeline(host, initial_value) {
  host.retain(as_object(device));
}

HostSemaphore::~HostSemaphore() { host.release(as_object(device)); }

halo_status_t HostSemaphore::create(Host host, halo_device_t* device,
                                    uint64_t initial_value,
                                    halo_semaphore_t** out_semaphore) noexcept {
  return guard(host, [&] {
    *out_semaphore =
        host.make<HostSemaphore>(host, device, initial_value)->handle();
  });
}

bool HostSemaphore::is(halo_semaphore_t* semaphore) noexcept {
  return is_semaphore_of<HostSemaphore>(semaphore);
}

halo_status_t wait_host_semaphores(Host host, halo_wait_mode_t mode,
                                   size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline) noexcept {
  return wait_timelines(host, mode, count, semaphores, values, deadline,
                        [](halo_semaphore_t* semaphore) noexcept
                            -> WaitableTimeline& {
                          return HostSemaphore::cast(semaphore)->timeline;
                        });
}

}  // namespace halo::sdk
