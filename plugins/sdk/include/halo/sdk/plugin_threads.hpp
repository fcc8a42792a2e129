// The threads a plugin object runs (a queue's worker, a device's pool), for
// an owner that may be torn down on any thread.
//
// A device's last reference may be dropped on another device's thread (a
// worker releasing a semaphore it signalled), and the application may
// already be leaving main then. Had the teardown joined its threads, each
// would sit finished but not yet joined while the process exits, which a
// thread-leak checker (ThreadSanitizer's) rightly reports. So these threads
// are detached as they start, and the teardown awaits a handshake instead
// of a join: each thread's last touch of the owner is the count it lowers
// under the lock. The plugin's code stays mapped for the rest of the
// thread's exit (library_pin.hpp).
//
// A thread may also tear its own owner down (it released the last
// submission, which held the device): then await_exits counts it as gone at
// once, and the thread's body must return touching nothing of the owner's;
// current_thread_abandoned() tells it so.
#ifndef HALO_SDK_PLUGIN_THREADS_HPP_
#define HALO_SDK_PLUGIN_THREADS_HPP_

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>

namespace halo::sdk {

class PluginThreads {
 public:
  PluginThreads() = default;
  // Aborts if a thread is still running, as a std::thread left joinable
  // does: its owner is about to be freed under it.
  ~PluginThreads();
  PluginThreads(const PluginThreads&) = delete;
  PluginThreads& operator=(const PluginThreads&) = delete;

  // Starts a thread that runs |body| (noexcept), named |name| for debuggers
  // (cut to 15 characters). Throws std::system_error.
  template <typename Body>
  void start(const char* name, Body body) {
    std::array<char, 16> thread_name = name_of(name);
    add_running();
    try {
      std::thread([this, thread_name, body = std::move(body)]() mutable {
        enter(thread_name.data());
        body();
        leave();
      }).detach();
    } catch (...) {
      remove_running();
      throw;
    }
  }

  // Waits until every thread started here has returned from its body; the
  // owner may be freed then. Called on one of those threads, that thread
  // counts as returned (see the file comment). The owner must have asked
  // its threads to end first.
  void await_exits() noexcept;

  // True on a thread started here.
  bool is_current_thread() const noexcept { return t_threads_ == this; }

  // True on a thread whose own call to await_exits let its owner go.
  static bool current_thread_abandoned() noexcept { return t_abandoned_; }

 private:
  static std::array<char, 16> name_of(const char* name) noexcept;
  void add_running() noexcept;
  void remove_running() noexcept;
  void enter(const char* name) noexcept;
  void leave() noexcept;

  static inline thread_local const PluginThreads* t_threads_ = nullptr;
  static inline thread_local bool t_abandoned_ = false;

  std::mutex mutex_;
  std::condition_variable exited_;
  uint32_t running_ = 0;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_PLUGIN_THREADS_HPP_
