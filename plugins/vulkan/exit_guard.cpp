// The exit guard's state: teardowns in progress and the exiting flag.
#include "exit_guard.hpp"

#include <condition_variable>
#include <cstdlib>
#include <mutex>

namespace halo::vk {
namespace {

// Plain statics with constant initialisation and trivial destructors, so
// they stay usable while exit handlers run.
std::mutex g_mutex;
std::condition_variable g_done;
int g_teardowns = 0;
bool g_exiting = false;
bool g_installed = false;

void wait_for_teardowns() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_exiting = true;
  g_done.wait(lock, [] { return g_teardowns == 0; });
}

}  // namespace

void install_exit_guard() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_installed) return;
  // atexit from a shared object is tied to it: if the plugin is unloaded
  // first, the handler runs (harmlessly) at that dlclose instead.
  g_installed = std::atexit(&wait_for_teardowns) == 0;
}

bool begin_teardown() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_exiting) return false;
  ++g_teardowns;
  return true;
}

void end_teardown() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_teardowns == 0) g_done.notify_all();
}

}  // namespace halo::vk
