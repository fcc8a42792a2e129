// The exit guard's state: driver use in progress, the registered wakes and
// the exiting flag.
#include "exit_guard.hpp"

#include <dlfcn.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include "wake.hpp"

namespace halo::vk {
namespace {

// Plain statics with constant initialisation and trivial destructors, so
// they stay usable while exit handlers run (std::mutex is one).
std::mutex g_mutex;

// The condition variables are never destroyed: a thread may stay parked on
// one while the process exits, and destroying a condition variable waits
// for its waiters. Made on first use, under g_mutex or before any thread
// could wait.
std::condition_variable& idle_condition() {
  static auto* condition = new std::condition_variable;
  return *condition;
}
std::condition_variable& unpark_condition() {
  static auto* condition = new std::condition_variable;
  return *condition;
}

int g_users = 0;
bool g_exiting = false;
bool g_installed = false;
// The registered wakes, linked through Wake::next_exit_wake (g_mutex).
Wake* g_wakes = nullptr;

void stop_driver_use_at_exit() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_exiting = true;
  // Under g_mutex, so that no wake is destroyed while it is signalled; a
  // sleeper that read the wake value before this still wakes.
  for (Wake* wake = g_wakes; wake != nullptr; wake = wake->next_exit_wake) {
    wake->wake();
  }
  idle_condition().wait(lock, [] { return g_users == 0; });
}

// Keeps this library mapped until the process ends, as the Vulkan loader
// and its drivers are (vulkan_api.cpp). glibc ties an atexit of a shared
// object to its dlclose, but runtimes that intercept atexit (ThreadSanitizer
// does) keep calling the handler at exit after the library is gone.
void pin_this_library() noexcept {
  Dl_info info = {};
  if (dladdr(reinterpret_cast<void*>(&stop_driver_use_at_exit), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  if (self != nullptr) dlclose(self);  // RTLD_NODELETE stays.
}

}  // namespace

void install_exit_guard() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_installed) return;
  pin_this_library();
  g_installed = std::atexit(&stop_driver_use_at_exit) == 0;
}

bool begin_driver_use() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_exiting) return false;
  ++g_users;
  return true;
}

void end_driver_use() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_users == 0) idle_condition().notify_all();
}

void park_while_exiting(const std::atomic<bool>& stop) noexcept {
  std::unique_lock<std::mutex> lock(g_mutex);
  if (!g_exiting) return;
  unpark_condition().wait(lock, [&] { return stop.load(std::memory_order_seq_cst); });
}

void unpark_exit_parked() noexcept {
  // Under the lock, so that a thread between its check of |stop| and its
  // wait cannot miss this.
  std::lock_guard<std::mutex> lock(g_mutex);
  unpark_condition().notify_all();
}

void register_exit_wake(Wake* wake) noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  wake->next_exit_wake = g_wakes;
  g_wakes = wake;
}

void unregister_exit_wake(Wake* wake) noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Wake** link = &g_wakes; *link != nullptr; link = &(*link)->next_exit_wake) {
    if (*link == wake) {
      *link = wake->next_exit_wake;
      return;
    }
  }
}

}  // namespace halo::vk
