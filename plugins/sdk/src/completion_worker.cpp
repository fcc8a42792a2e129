#include "halo/sdk/completion_worker.hpp"

#include "halo/sdk/spin.hpp"

namespace halo::sdk {

void CompletionWorker::start() {
  thread_.start("halo-completion", [this] { run(); });
}

void CompletionWorker::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    has_work_.store(true, std::memory_order_release);
    work_ready_.notify_all();
  }
  // Called from process() (the last submission took the device's last
  // reference with it), this returns at once (see plugin_threads.hpp).
  thread_.await_exits();
}

bool CompletionWorker::is_current_thread() const noexcept {
  return thread_.is_current_thread();
}

void CompletionWorker::post(Submission* submission) noexcept {
  // Notify under the lock: once it is released the worker may destroy the
  // submission, drop the device's last reference and free this worker.
  std::lock_guard<std::mutex> lock(mutex_);
  submission->next_ready = nullptr;
  if (tail_ != nullptr) {
    tail_->next_ready = submission;
  } else {
    head_ = submission;
  }
  tail_ = submission;
  has_work_.store(true, std::memory_order_release);
  // No system call while the worker spins: it is no waiter then.
  work_ready_.notify_one();
}

void CompletionWorker::run() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  // When the owner's poll wants to run again; 0 while it has nothing.
  std::chrono::nanoseconds poll_again{0};
  auto poll = [&] {
    lock.unlock();
    poll_again = poll_(owner_);
    lock.lock();
  };
  for (;;) {
    if (Submission* batch = head_) {
      // Everything posted so far in one take: the posting threads then
      // meet the lock once per batch, not once per submission.
      head_ = tail_ = nullptr;
      has_work_.store(false, std::memory_order_relaxed);
      lock.unlock();
      while (batch != nullptr) {
        Submission* submission = batch;
        batch = submission->next_ready;  // Before process frees it.
        process_(owner_, submission);
        // The worker may be gone now (see the file comment); then this was
        // the last submission of all.
        if (PluginThreads::current_thread_abandoned()) return;
      }
      lock.lock();
      idle_owed_ = idle_ != nullptr;
      if (poll_ != nullptr) poll();
      continue;
    }
    if (stopping_) return;
    if (poll_again.count() > 0) {
      // Polled work is left: sleep until its time, or until work is
      // posted.
      if (!work_ready_.wait_for(lock, poll_again,
                                [&] { return head_ != nullptr || stopping_; })) {
        poll();
      }
      continue;
    }
    if (idle_spin_.count() > 0) {
      spin_for_work(lock);
      if (head_ != nullptr || stopping_) continue;
    }
    if (idle_owed_) {
      idle_after_work(lock);
      continue;
    }
    work_ready_.wait(lock);
  }
}

void CompletionWorker::spin_for_work(
    std::unique_lock<std::mutex>& lock) noexcept {
  lock.unlock();
  spin_until(idle_spin_, std::chrono::nanoseconds(0),
             [&] { return has_work_.load(std::memory_order_acquire); });
  lock.lock();
}

void CompletionWorker::idle_after_work(
    std::unique_lock<std::mutex>& lock) noexcept {
  if (work_ready_.wait_for(lock, kIdleDelay,
                           [&] { return head_ != nullptr || stopping_; })) {
    return;  // Still owed: the next idle time pays it.
  }
  idle_owed_ = false;
  lock.unlock();
  idle_(owner_);
  lock.lock();
}

}  // namespace halo::sdk
