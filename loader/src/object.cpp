// Reference counting of every halo object, and the clock.
//
// All releases go through here (plugins use the host interface), so libhalo
// sees when a driver dies and can drop the module that keeps its plugin
// loaded, and validation sees when a tracked object dies.
#include <atomic>
#include <ctime>
#include <memory>
#include <vector>

#include "halo/deadline.h"
#include "halo/object.h"
#include "device_side_waits.hpp"
#include "object_refs.hpp"
#include "plugin_module.hpp"
#include "shared_buffers.hpp"
#include "validation/object_checks.hpp"

namespace {

std::atomic_ref<uint32_t> ref_count_of(halo_object_t* object) {
  return std::atomic_ref<uint32_t>(object->ref_count);
}

// A release can cascade inside a plugin (semaphore → device → driver); the
// driver's module may be dropped (and its library unmapped) only once the
// outermost release on this thread has returned out of the plugin's code.
// Each dying driver's module is taken out of the driver→module map *before*
// its destroy runs and parked here: once destroy frees the driver, a driver
// created meanwhile (on any thread) may get the same address and its own map
// entry, which the dead one must neither find nor remove. The parked holds
// form an intrusive list, so a release allocates nothing.
thread_local int t_release_depth = 0;
thread_local halo::loader::ModuleHold* t_dead_modules = nullptr;

}  // namespace

namespace halo::loader {

void retain_object(halo_object_t* object) noexcept {
  if (object == nullptr) return;
  ref_count_of(object).fetch_add(1, std::memory_order_relaxed);
}

void release_object(halo_object_t* object) noexcept {
  if (object == nullptr) return;
  if (ref_count_of(object).fetch_sub(1, std::memory_order_acq_rel) != 1) {
    return;
  }
  // Before destroy: once the memory is freed, a new object may take the
  // address, and its creation must find the tombstone already there.
  if (validation::enabled()) [[unlikely]] {
    validation::on_last_release(object);
  }
  const halo_object_vtable_t* vtable = object->vtable;
  ++t_release_depth;
  // Buffers a command buffer keeps alive for the imports its commands name:
  // released once its destroy has let go of those imports.
  std::vector<halo_buffer_t*> kept;
  if (vtable->type == HALO_OBJECT_TYPE_SEMAPHORE) {
    // Before destroy, for the same reason: no import made of this semaphore
    // may be found under its address again.
    halo::loader::forget_imports_of_semaphore(object);
  } else if (vtable->type == HALO_OBJECT_TYPE_BUFFER) {
    halo::loader::forget_buffer(object);
  } else if (vtable->type == HALO_OBJECT_TYPE_COMMAND_BUFFER) {
    kept = halo::loader::take_command_buffer(object);
  } else if (vtable->type == HALO_OBJECT_TYPE_DRIVER) {
    auto hold = halo::loader::take_module_of_driver(
        reinterpret_cast<halo_driver_t*>(object));
    if (hold != nullptr) {
      hold->next = t_dead_modules;
      t_dead_modules = hold.release();
    }
  }
  vtable->destroy(object);
  for (halo_buffer_t* buffer : kept) {
    release_object(reinterpret_cast<halo_object_t*>(buffer));
  }
  --t_release_depth;
  if (t_release_depth > 0) return;
  // Every destroy of this cascade has returned: the plugins' code is off the
  // stack, so their libraries may now be unloaded.
  while (t_dead_modules != nullptr) {
    std::unique_ptr<halo::loader::ModuleHold> hold(t_dead_modules);
    t_dead_modules = hold->next;
  }
}

void retain_checked(halo_object_t* object, const char* function) noexcept {
  if (validation::enabled()) [[unlikely]] {
    if (!validation::may_retain(object, function)) return;
  }
  retain_object(object);
}

void release_checked(halo_object_t* object, const char* function) noexcept {
  if (validation::enabled()) [[unlikely]] {
    if (!validation::may_release(object, function)) return;
  }
  // The imports libhalo made into a device hold it; they go first, so that
  // the application's last release tears the device down in this call.
  if (object != nullptr && object->vtable != nullptr &&
      object->vtable->type == HALO_OBJECT_TYPE_DEVICE) {
    forget_imports_into_device(reinterpret_cast<halo_device_t*>(object));
    forget_buffer_imports_into_device(reinterpret_cast<halo_device_t*>(object));
  }
  release_object(object);
}

}  // namespace halo::loader

extern "C" {

void halo_object_retain(halo_object_t* object) {
  halo::loader::retain_checked(object, "halo_object_retain");
}

void halo_object_release(halo_object_t* object) {
  halo::loader::release_checked(object, "halo_object_release");
}

halo_object_type_t halo_object_type(const halo_object_t* object) {
  if (object == nullptr || object->vtable == nullptr) {
    return HALO_OBJECT_TYPE_NONE;
  }
  return static_cast<halo_object_type_t>(object->vtable->type);
}

halo_time_ns_t halo_time_now_ns(void) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<halo_time_ns_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

halo_time_ns_t halo_deadline_after_ns(int64_t timeout_ns) {
  if (timeout_ns <= 0) {
    return HALO_DEADLINE_INFINITE_PAST;
  }
  const halo_time_ns_t now = halo_time_now_ns();
  if (timeout_ns >= HALO_DEADLINE_INFINITE_FUTURE - now) {
    return HALO_DEADLINE_INFINITE_FUTURE;
  }
  return now + timeout_ns;
}

}  // extern "C"
