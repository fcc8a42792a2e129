// One thread per queue that takes submissions handed over from callbacks
// (timepoint callbacks, native completion callbacks: short, on threads not
// the plugin's) and processes them in order: runs or completes them,
// releases what they hold, destroys them.
//
// Lifetime: a worker belongs to a queue that belongs to its device. Every
// submission retains the device, so the device (and the queue) can only go
// when no submission exists, but its last reference may be dropped by the
// worker itself, while it destroys the last submission. Then stop() runs
// on the worker: it returns at once, and the loop returns without touching
// the worker again, so the queue may free it as soon as stop() returns
// (plugin_threads.hpp).
//
// A worker may also poll work of its owner's that nothing reports promptly
// (a GPU's long kernels, whose driver's completion callbacks come late):
// between takes, and while idle at the times the poll asks for, it calls
// the owner's PollFunction, so that such work never holds up the
// submissions posted behind it.
//
// And a worker may let its owner let go of what it keeps for the next
// submitting thread (memory given back, objects released later): once it
// has processed work and then been idle for kIdleDelay, it calls the
// owner's IdleFunction, so that a queue that went quiet holds nothing for
// long, while a busy one never meets the worker in those releases.
#ifndef HALO_SDK_COMPLETION_WORKER_HPP_
#define HALO_SDK_COMPLETION_WORKER_HPP_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include "halo/sdk/plugin_threads.hpp"
#include "halo/sdk/submission.hpp"

namespace halo::sdk {

class CompletionWorker {
 public:
  // Runs on the worker thread for each posted submission, in order.
  using ProcessFunction = void (*)(void* owner,
                                   Submission* submission) noexcept;
  // Runs on the worker thread after each take, and when the time it last
  // returned has passed with nothing posted. Returns how long until it
  // wants to run again, or 0 while it has nothing to poll (then it runs
  // after the next take).
  using PollFunction = std::chrono::nanoseconds (*)(void* owner) noexcept;
  // Runs on the worker thread once after work was processed, when nothing
  // was posted nor polled for kIdleDelay since.
  using IdleFunction = void (*)(void* owner) noexcept;

  // Long beside a busy queue's gaps between submissions (microseconds),
  // short beside how long an application may leave a queue alone.
  static constexpr std::chrono::milliseconds kIdleDelay{1};

  // |idle_spin|: how long the thread looks for new work before it sleeps
  // once the queue is empty. 0 (the default) sleeps at once. A short spin
  // keeps a busy queue's submitters from paying a futex wake-up for every
  // hand-over, at the price of a core for that long after the last one.
  // |poll|: see PollFunction; |idle|: see IdleFunction; NULL for none.
  CompletionWorker(
      ProcessFunction process, void* owner,
      std::chrono::nanoseconds idle_spin = std::chrono::nanoseconds(0),
      PollFunction poll = nullptr, IdleFunction idle = nullptr) noexcept
      : process_(process),
        owner_(owner),
        idle_spin_(idle_spin),
        poll_(poll),
        idle_(idle) {}
  CompletionWorker(const CompletionWorker&) = delete;
  CompletionWorker& operator=(const CompletionWorker&) = delete;

  // Starts the thread. Throws std::system_error.
  void start();
  // Stops the thread once the submissions posted so far are processed and
  // waits for it to end, or, called on it, lets it end by itself (see the
  // file comment). The
  // owner must have nothing left to poll: a stopped worker polls no more.
  void stop() noexcept;

  // Hands |submission| to the thread. Short, never blocks on the device:
  // safe inside any callback. Thread-safe.
  void post(Submission* submission) noexcept;

  // True on the thread of this worker.
  bool is_current_thread() const noexcept;

 private:
  void run() noexcept;
  // Spins for up to idle_spin_ until work is posted. Called and returns
  // with |lock| held; releases it meanwhile.
  void spin_for_work(std::unique_lock<std::mutex>& lock) noexcept;
  // Waits kIdleDelay for work; if none comes, calls idle_. Called and
  // returns with |lock| held.
  void idle_after_work(std::unique_lock<std::mutex>& lock) noexcept;

  const ProcessFunction process_;
  void* const owner_;
  const std::chrono::nanoseconds idle_spin_;
  const PollFunction poll_;
  const IdleFunction idle_;
  // Set while the queue holds work, or once the worker is to stop, so that
  // a spin needs no lock and ends as soon as either happens.
  std::atomic<bool> has_work_{false};
  std::mutex mutex_;
  std::condition_variable work_ready_;
  Submission* head_ = nullptr;
  Submission* tail_ = nullptr;
  bool stopping_ = false;
  // Work was processed since idle_ last ran (worker only).
  bool idle_owed_ = false;
  PluginThreads thread_;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_COMPLETION_WORKER_HPP_
