#include "halo/sdk/plugin_threads.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "halo/sdk/library_pin.hpp"

namespace halo::sdk {

PluginThreads::~PluginThreads() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_ != 0) {
    std::fprintf(stderr,
                 "halo: a plugin object was freed with %u of its threads "
                 "still running (await_exits was not called)\n",
                 running_);
    std::abort();
  }
}

std::array<char, 16> PluginThreads::name_of(const char* name) noexcept {
  // Thread names are at most 15 characters and a terminator.
  std::array<char, 16> result{};
  if (name != nullptr) std::strncpy(result.data(), name, result.size() - 1);
  return result;
}

void PluginThreads::add_running() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  ++running_;
}

void PluginThreads::remove_running() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--running_ == 0) exited_.notify_all();
}

void PluginThreads::enter(const char* name) noexcept {
  t_threads_ = this;
  // This thread may drop the plugin's last object: keep the plugin's code
  // mapped until the thread has left it.
  pin_library_to_current_thread();
  if (name[0] != '\0') pthread_setname_np(pthread_self(), name);
}

void PluginThreads::leave() noexcept {
  // An abandoned thread's owner may be gone.
  if (t_abandoned_) return;
  // Notified under the lock: the waiter can free us only after it has taken
  // the lock, so no touch of ours comes after that.
  remove_running();
}

void PluginThreads::await_exits() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  if (t_threads_ == this && !t_abandoned_) {
    t_abandoned_ = true;
    --running_;
  }
  exited_.wait(lock, [this] { return running_ == 0; });
}

}  // namespace halo::sdk
