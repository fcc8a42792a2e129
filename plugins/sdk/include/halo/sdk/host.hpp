// The host interface as seen from C++ plugin code.
//
// A plugin receives a `const halo_host_interface_t*` in halo_plugin_query and
// must use it for everything it needs from halo: statuses, logging, reference
// counting and memory. `Host` wraps that pointer with C++ conveniences, and
// `guard` turns every C++ exception into a status, because no exception may
// cross the C boundary (DESIGN.md §2.6).
#ifndef HALO_SDK_HOST_HPP_
#define HALO_SDK_HOST_HPP_

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "halo/plugin.h"
#include "halo/sdk/status.hpp"
#include "halo/semaphore.h"

#if defined(__GNUC__) || defined(__clang__)
#define HALO_SDK_PRINTF(format_index, first_arg) \
  __attribute__((format(printf, format_index, first_arg)))
#else
#define HALO_SDK_PRINTF(format_index, first_arg)
#endif

namespace halo::sdk {

// Remembers |host| as the process-wide host interface, for code that has no
// object at hand to ask (the plugin calls this from halo_plugin_query).
// Borrows |host|. Thread-safe.
void set_current_host(const halo_host_interface_t* host) noexcept;

// Returns the host interface last given to set_current_host, or NULL.
const halo_host_interface_t* current_host() noexcept;

// A cheap, copyable view of the host interface. Every method is thread-safe
// because every host interface function is.
class Host {
 public:
  Host() noexcept = default;
  explicit Host(const halo_host_interface_t* interface) noexcept
      : interface_(interface) {}

  // Returns the wrapped interface (borrowed; may be NULL).
  const halo_host_interface_t* get() const noexcept { return interface_; }
  explicit operator bool() const noexcept { return interface_ != nullptr; }

  // Returns a new status with |code| and a printf-style message; NULL (OK)
  // when |code| is HALO_STATUS_OK. Messages longer than 1 KiB are truncated.
  halo_status_t make_status(halo_status_code_t code, const char* format,
                            ...) const noexcept HALO_SDK_PRINTF(3, 4);
  halo_status_t make_status_v(halo_status_code_t code, const char* format,
                              va_list arguments) const noexcept;
  // Returns a new status with |code| and |message| copied (may be NULL).
  halo_status_t make_status_text(halo_status_code_t code,
                                 const char* message) const noexcept {
    return interface_->status_create(code, message);
  }
  // Returns the host's immortal status for |code| (its message is the code's
  // description) without allocating: for hot paths such as a poll that
  // misses. NULL for HALO_STATUS_OK.
  halo_status_t status_from_code(halo_status_code_t code) const noexcept {
    return interface_->status_from_code(code);
  }
  // Returns a copy of |status| (borrowed); NULL for NULL.
  halo_status_t clone(halo_status_t status) const noexcept {
    return status == nullptr ? nullptr : interface_->status_clone(status);
  }
  // Takes ownership of |status| and frees it. Accepts NULL.
  void free(halo_status_t status) const noexcept {
    if (status != nullptr) interface_->status_free(status);
  }
  // Returns the code of |status| (borrowed); OK for NULL.
  halo_status_code_t code(halo_status_t status) const noexcept {
    return status == nullptr ? HALO_STATUS_OK : interface_->status_code(status);
  }
  // Returns the message of |status| (borrowed); "" for NULL.
  const char* message(halo_status_t status) const noexcept {
    return status == nullptr ? "" : interface_->status_message(status);
  }
  // Takes ownership of |status|; returns it with |prefix| prepended.
  halo_status_t annotate(halo_status_t status,
                         const char* prefix) const noexcept {
    return status == nullptr ? nullptr
                             : interface_->status_annotate(status, prefix);
  }

  // Logs a printf-style message at |level|; the host adds the plugin's name.
  void log(halo_log_level_t level, const char* format, ...) const noexcept
      HALO_SDK_PRINTF(3, 4);

  // Adds or drops a reference to any halo object through the host, so the
  // host sees every destruction. Both accept NULL.
  void retain(halo_object_t* object) const noexcept {
    if (object != nullptr) interface_->object_retain(object);
  }
  void release(halo_object_t* object) const noexcept {
    if (object != nullptr) interface_->object_release(object);
  }
  // Drops a reference to |object| (a plugin's own) unless it is the last
  // one; returns whether it dropped it. A count of one is stable (nobody
  // else holds the object, so nobody can retain it), so false means the
  // caller's release would destroy it. Not through the host: a release
  // that destroys nothing is only the atomic decrement.
  static bool release_unless_last(halo_object_t* object) noexcept;

  // Returns CLOCK_MONOTONIC nanoseconds as the host measures them.
  halo_time_ns_t now() const noexcept { return interface_->time_now_ns(); }

  // Returns |size| bytes aligned to |alignment| from the host allocator, or
  // NULL when memory is exhausted.
  void* allocate(size_t size, size_t alignment) const noexcept;
  // Frees memory from allocate. Accepts NULL.
  void deallocate(void* pointer) const noexcept {
    if (pointer != nullptr) {
      interface_->allocator.free(interface_->allocator.self, pointer);
    }
  }

  // Constructs a T in host memory. Throws std::bad_alloc when memory is
  // exhausted, and whatever T's constructor throws (after freeing).
  template <class T, class... Args>
  T* make(Args&&... arguments) const {
    void* memory = allocate(sizeof(T), alignof(T));
    if (memory == nullptr) throw std::bad_alloc();
    try {
      return ::new (memory) T(std::forward<Args>(arguments)...);
    } catch (...) {
      deallocate(memory);
      throw;
    }
  }
  // Destroys a T made by make. Accepts NULL.
  template <class T>
  void destroy(T* object) const noexcept {
    if (object == nullptr) return;
    object->~T();
    deallocate(static_cast<void*>(object));
  }

 private:
  const halo_host_interface_t* interface_ = nullptr;
};

// Returns the host interface remembered by set_current_host as a Host.
inline Host host() noexcept { return Host(current_host()); }

// An STL allocator over the host allocator, so that containers inside plugin
// objects draw from the memory the application provided.
template <class T>
class HostAllocator {
 public:
  using value_type = T;

  explicit HostAllocator(Host host) noexcept : host_(host) {}
  template <class U>
  HostAllocator(const HostAllocator<U>& other) noexcept  // NOLINT
      : host_(other.host()) {}

  T* allocate(size_t count) {
    if (count > std::numeric_limits<size_t>::max() / sizeof(T)) {
      throw std::bad_alloc();
    }
    void* memory = host_.allocate(count * sizeof(T), alignof(T));
    if (memory == nullptr) throw std::bad_alloc();
    return static_cast<T*>(memory);
  }
  void deallocate(T* pointer, size_t) noexcept { host_.deallocate(pointer); }

  Host host() const noexcept { return host_; }
  template <class U>
  bool operator==(const HostAllocator<U>& other) const noexcept {
    return host_.get() == other.host().get();
  }

 private:
  Host host_;
};

// Converts the exception being handled into a new status:
// std::bad_alloc → RESOURCE_EXHAUSTED, any other → INTERNAL with what().
// Must be called from inside a catch block.
halo_status_t status_from_current_exception(Host host) noexcept;

// Runs |function| and returns its status (or OK when it returns void),
// converting any exception into a status so that nothing escapes into C.
template <class Function>
halo_status_t guard(Host host, Function&& function) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<Function>>) {
      std::forward<Function>(function)();
      return HALO_OK;
    } else {
      return std::forward<Function>(function)();
    }
  } catch (...) {
    return status_from_current_exception(host);
  }
}

// Like guard for entries that cannot return a status (fail, destroy): an
// escaping exception is logged as an error and swallowed.
template <class Function>
void guard_void(Host host, const char* what, Function&& function) noexcept {
  halo_status_t status = guard(host, std::forward<Function>(function));
  if (status != nullptr) {
    host.log(HALO_LOG_LEVEL_ERROR, "%s: %s", what, host.message(status));
    host.free(status);
  }
}

// Returns the object header of any handle (every handle begins with one).
template <class Handle>
halo_object_t* as_object(Handle* handle) noexcept {
  return reinterpret_cast<halo_object_t*>(handle);
}

// Returns the semaphore vtable of |semaphore| (any plugin's).
inline const halo_semaphore_vtable_t* semaphore_vtable(
    halo_semaphore_t* semaphore) noexcept {
  return reinterpret_cast<const halo_semaphore_vtable_t*>(
      as_object(semaphore)->vtable);
}

}  // namespace halo::sdk

// Runs the statements that follow as the body of a lambda returning
// halo_status_t, converting any exception into a status:
//   return HALO_SDK_TRY(host, { ...; return HALO_OK; });
#define HALO_SDK_TRY(host, ...) \
  ::halo::sdk::guard((host), [&]() -> halo_status_t __VA_ARGS__)

#endif  // HALO_SDK_HOST_HPP_
