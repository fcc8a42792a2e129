// The thread's library pin: a thread_local object with a destructor.
//
// The C library registers the destructor of a thread_local object through
// __cxa_thread_atexit_impl together with the shared object that defines it,
// and glibc refuses to unmap a shared object while any thread still has such
// a destructor pending (link_map::l_tls_dtor_count; see glibc's
// stdlib/cxa_thread_atexit_impl.c). The destructor runs after the thread's
// function has returned, so constructing one on a plugin thread keeps the
// plugin's code mapped for exactly as long as the thread can run it. A
// dlclose that comes in meanwhile leaves the library loaded; the next
// dlopen/dlclose cycle unloads it. No pthread key, no dlopen of ourselves,
// nothing that could run out.
#include "halo/sdk/library_pin.hpp"

#include <atomic>

namespace halo::sdk {
namespace {

struct ThreadPin {
  // User-provided, so the destructor is non-trivial and must be registered.
  ~ThreadPin() { active.store(false, std::memory_order_relaxed); }
  std::atomic<bool> active{true};
};

}  // namespace

void pin_library_to_current_thread() noexcept {
  // Constructed (and its destructor registered) the first time a thread
  // passes here; later calls on the same thread do nothing.
  static thread_local ThreadPin pin;
  (void)pin.active.load(std::memory_order_relaxed);
}

}  // namespace halo::sdk
