// halo/sdk/c/semaphore.h over sdk::HostSemaphore.
#include "halo/sdk/c/semaphore.h"

#include "halo/sdk/host_semaphore.hpp"

using halo::sdk::Host;
using halo::sdk::HostSemaphore;

halo_status_t halo_sdk_semaphore_create(const halo_host_interface_t* host,
                                        halo_device_t* device,
                                        uint64_t initial_value,
                                        halo_semaphore_t** out_semaphore) {
  return HostSemaphore::create(Host(host), device, initial_value,
                               out_semaphore);
}

halo_status_t halo_sdk_semaphore_create_with_flags(
    const halo_host_interface_t* host, halo_device_t* device,
    uint64_t initial_value, halo_semaphore_flags_t flags,
    halo_semaphore_t** out_semaphore) {
  return HostSemaphore::create(Host(host), device, initial_value,
                               out_semaphore, flags);
}

halo_status_t halo_sdk_semaphore_import(const halo_host_interface_t* host,
                                        halo_device_t* device,
                                        const halo_external_handle_t* handle,
                                        halo_semaphore_t** out_semaphore) {
  static_assert(HALO_SDK_SEMAPHORE_SHARE_TYPES == HostSemaphore::kShareTypes);
  return HostSemaphore::import(Host(host), device, handle, out_semaphore);
}

bool halo_sdk_semaphore_is(halo_semaphore_t* semaphore) {
  return HostSemaphore::is(semaphore);
}

halo_status_t halo_sdk_semaphores_wait(const halo_host_interface_t* host,
                                       halo_wait_mode_t mode, size_t count,
                                       halo_semaphore_t* const* semaphores,
                                       const uint64_t* values,
                                       halo_time_ns_t deadline) {
  return halo::sdk::wait_host_semaphores(Host(host), mode, count, semaphores,
                                         values, deadline);
}
