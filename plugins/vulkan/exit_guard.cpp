// The exit guard's state: driver use in progress, the registered wakes and
// the exiting flag.
#include "exit_guard.hpp"

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

}  // namespace

void install_exit_guard() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_installed) return;
  // atexit from a shared object is tied to it: if the plugin is unloaded
  // first, the handler runs (harmlessly: nothing is registered then) at that
  // dlclose instead.
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
