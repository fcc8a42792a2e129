// The semaphore vtable of a plugin's semaphore type, written once.
//
// A plugin semaphore type T is a struct whose first member is
// `halo_object_t header` (so the handle and the object share an address),
// with members `sdk::Host host` and `device` (a halo_device_t*, or a
// plugin device with handle()), and `static T* cast(halo_semaphore_t*)`.
// Each vtable entry calls T's member function of the same name when T has
// one, and otherwise T's `timeline` member (an sdk::Timeline or
// sdk::WaitableTimeline):
//   halo_status_t query(uint64_t* out_value) noexcept;
//   halo_status_t signal(uint64_t value) noexcept;
//   void fail(halo_status_t status) noexcept;
//   halo_status_t wait(uint64_t value, halo_time_ns_t deadline) noexcept;
//   halo_status_t acquire_timepoint(halo_timepoint_t* timepoint) noexcept;
//   bool cancel_timepoint(halo_timepoint_t* timepoint) noexcept;
// export_handle (ABI 1.3) and signal_committed (ABI 1.5) are T's members of
// those names where T has them, and NULL otherwise:
//   halo_status_t export_handle(halo_external_handle_type_t type,
//                               halo_external_handle_t* out_handle) noexcept;
//   bool signal_committed(uint64_t value) noexcept;
// destroy calls `static void T::destroy(T*) noexcept` when T has it, and
// otherwise destroys the object through its host. Every entry must be
// noexcept: the vtable crosses the C ABI.
//
//   const halo_semaphore_vtable_t& kVtable = sdk::kSemaphoreVtable<Semaphore>;
#ifndef HALO_SDK_SEMAPHORE_VTABLE_HPP_
#define HALO_SDK_SEMAPHORE_VTABLE_HPP_

#include <type_traits>

#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::sdk::semaphore_entries {

template <class T>
void destroy(halo_object_t* object) noexcept {
  T* self = reinterpret_cast<T*>(object);
  if constexpr (requires { T::destroy(self); }) {
    T::destroy(self);
  } else {
    Host host = self->host;
    host.destroy(self);
  }
}

template <class T>
halo_status_t query(halo_semaphore_t* semaphore, uint64_t* out_value) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->query(out_value); }) {
    return self->query(out_value);
  } else {
    return self->timeline.query(out_value);
  }
}

template <class T>
halo_status_t signal(halo_semaphore_t* semaphore, uint64_t value) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->signal(value); }) {
    return self->signal(value);
  } else {
    return self->timeline.signal(value);
  }
}

template <class T>
void fail(halo_semaphore_t* semaphore, halo_status_t status) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->fail(status); }) {
    self->fail(status);
  } else {
    self->timeline.fail(status);
  }
}

template <class T>
halo_status_t wait(halo_semaphore_t* semaphore, uint64_t value,
                   halo_time_ns_t deadline) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->wait(value, deadline); }) {
    return self->wait(value, deadline);
  } else {
    return self->timeline.wait(value, deadline);
  }
}

template <class T>
halo_status_t acquire_timepoint(halo_semaphore_t* semaphore,
                                halo_timepoint_t* timepoint) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->acquire_timepoint(timepoint); }) {
    return self->acquire_timepoint(timepoint);
  } else {
    return self->timeline.acquire(timepoint);
  }
}

template <class T>
bool cancel_timepoint(halo_semaphore_t* semaphore,
                      halo_timepoint_t* timepoint) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (requires { self->cancel_timepoint(timepoint); }) {
    return self->cancel_timepoint(timepoint);
  } else {
    return self->timeline.cancel(timepoint);
  }
}

template <class T>
halo_device_t* device(halo_semaphore_t* semaphore) noexcept {
  T* self = T::cast(semaphore);
  if constexpr (std::is_same_v<decltype(self->device), halo_device_t*>) {
    return self->device;
  } else {
    return self->device->handle();
  }
}

template <class T>
halo_status_t export_handle(halo_semaphore_t* semaphore,
                            halo_external_handle_type_t type,
                            halo_external_handle_t* out_handle) noexcept {
  return T::cast(semaphore)->export_handle(type, out_handle);
}

// The export entry (ABI 1.3): NULL, so UNIMPLEMENTED, unless T has
// `halo_status_t export_handle(halo_external_handle_type_t,
// halo_external_handle_t*) noexcept`.
template <class T>
consteval auto export_entry() {
  using Entry = decltype(halo_semaphore_vtable_t::export_handle);
  if constexpr (requires(T* self, halo_external_handle_t* out) {
                  self->export_handle(halo_external_handle_type_t{}, out);
                }) {
    return Entry{&export_handle<T>};
  } else {
    return Entry{nullptr};
  }
}

template <class T>
bool signal_committed(halo_semaphore_t* semaphore, uint64_t value) noexcept {
  return T::cast(semaphore)->signal_committed(value);
}

// The committed-signal entry (ABI 1.5): NULL, so never committed, unless T
// has `bool signal_committed(uint64_t) noexcept`.
template <class T>
consteval auto signal_committed_entry() {
  using Entry = decltype(halo_semaphore_vtable_t::signal_committed);
  if constexpr (requires(T* self) { self->signal_committed(uint64_t{}); }) {
    return Entry{&signal_committed<T>};
  } else {
    return Entry{nullptr};
  }
}

}  // namespace halo::sdk::semaphore_entries

namespace halo::sdk {

template <class T>
inline constexpr halo_semaphore_vtable_t kSemaphoreVtable = {
    .object = {.struct_size = sizeof(halo_semaphore_vtable_t),
               .type = HALO_OBJECT_TYPE_SEMAPHORE,
               .destroy = &semaphore_entries::destroy<T>},
    .query = &semaphore_entries::query<T>,
    .signal = &semaphore_entries::signal<T>,
    .fail = &semaphore_entries::fail<T>,
    .wait = &semaphore_entries::wait<T>,
    .acquire_timepoint = &semaphore_entries::acquire_timepoint<T>,
    .cancel_timepoint = &semaphore_entries::cancel_timepoint<T>,
    .device = &semaphore_entries::device<T>,
    .export_handle = semaphore_entries::export_entry<T>(),
    .signal_committed = semaphore_entries::signal_committed_entry<T>(),
};

// True when |semaphore| (any plugin's, or NULL) is a T.
template <class T>
bool is_semaphore_of(halo_semaphore_t* semaphore) noexcept {
  return semaphore != nullptr &&
         as_object(semaphore)->vtable == &kSemaphoreVtable<T>.object;
}

}  // namespace halo::sdk

#endif  // HALO_SDK_SEMAPHORE_VTABLE_HPP_
