// halo_semaphores_wait's routing: one semaphore, one device's semaphores, or
// a mix, which the plugin SDK's multi-wait serves through the plugins'
// vtables.
#include "multi_wait.hpp"

#include "check.hpp"
#include "halo/device.h"
#include "halo/sdk/multi_wait.hpp"
#include "host_interface.hpp"
#include "plugin_status.hpp"

namespace halo::loader {
namespace {

constexpr char kFunction[] = "halo_semaphores_wait";

const halo_semaphore_vtable_t* semaphore_vtable(halo_semaphore_t* semaphore) {
  return vtable_of<halo_semaphore_vtable_t>(semaphore);
}

// The device owning every semaphore, or NULL when they differ.
halo_device_t* common_device(size_t count, halo_semaphore_t* const* semaphores) {
  halo_device_t* device = semaphore_vtable(semaphores[0])->device(semaphores[0]);
  for (size_t i = 1; i < count; ++i) {
    if (semaphore_vtable(semaphores[i])->device(semaphores[i]) != device) {
      return nullptr;
    }
  }
  return device;
}

// The multi-wait's semaphores through their plugins' vtables. Every status a
// plugin hands back, failures its timepoints are called back with included,
// is checked against that plugin (plugin_status).
class PluginSemaphores final : public sdk::MultiWaitSemaphores {
 public:
  explicit PluginSemaphores(halo_semaphore_t* const* semaphores) noexcept
      : semaphores_(semaphores) {}

  halo_status_t query(size_t index, uint64_t* out_payload) noexcept override {
    return call_plugin(kFunction, vtable(index)->query, semaphores_[index],
                       out_payload);
  }
  halo_status_t acquire_timepoint(
      size_t index, halo_timepoint_t* timepoint) noexcept override {
    return call_plugin(kFunction, vtable(index)->acquire_timepoint,
                       semaphores_[index], timepoint);
  }
  void cancel_timepoint(size_t index,
                        halo_timepoint_t* timepoint) noexcept override {
    vtable(index)->cancel_timepoint(semaphores_[index], timepoint);
  }
  halo_status_t take_failure(size_t index,
                             halo_status_t status) noexcept override {
    return plugin_status(
        status, reinterpret_cast<const void*>(vtable(index)->acquire_timepoint),
        kFunction);
  }

 private:
  const halo_semaphore_vtable_t* vtable(size_t index) const noexcept {
    return semaphore_vtable(semaphores_[index]);
  }

  halo_semaphore_t* const* semaphores_;
};

// libhalo's own host interface, for the SDK's wait: statuses and memory.
// Its allocator is libhalo's, never a registry's: the semaphores of a mixed
// wait may come from registries with different allocators (or none), and
// what it allocates (timepoints past eight pairs, for a blocking wait only)
// is libhalo's and is freed before the wait returns, like its statuses
// (halo_registry_options_t::allocator says so).
sdk::Host own_host() {
  static const halo_host_interface_t host =
      make_host_interface(nullptr, nullptr);
  return sdk::Host(&host);
}

}  // namespace

halo_status_t wait_semaphores(halo_wait_mode_t mode, size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values, halo_time_ns_t deadline) {
  if (count == 1) {
    return call_plugin(kFunction, semaphore_vtable(semaphores[0])->wait,
                       semaphores[0], values[0], deadline);
  }
  halo_device_t* device = common_device(count, semaphores);
  if (device != nullptr) {
    return call_plugin(kFunction,
                       vtable_of<halo_device_vtable_t>(device)->wait_semaphores,
                       device, mode, count, semaphores, values, deadline);
  }
  PluginSemaphores plugin_semaphores(semaphores);
  return sdk::wait_semaphores(own_host(), mode, count, values, deadline,
                              plugin_semaphores);
}

}  // namespace halo::loader
