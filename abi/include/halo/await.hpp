// C++20 coroutine awaits on device work (DESIGN.md §4a): co_await a fence,
// a semaphore's value, or the first of several fences, from any devices and
// plugins, with no thread blocked and no polling.
//
//   co_await halo::reached(fence, executor);        // every timepoint
//   co_await semaphore_reached(semaphore, 5, executor);
//   std::size_t first = co_await halo::when_any({a, b}, executor);
//   co_await fence;   // in a coroutine whose promise has executor(),
//                     // such as halo::Task's
//   co_await semaphore.reached(5);   // likewise
//
// An await registers one timepoint per semaphore; the last one reached (or
// the first failure) posts the coroutine's resumption to the executor the
// application chose: any object with `void post(std::function<void()>)`.
// halo::RunLoop is one for a program's main thread, and halo::Task a
// coroutine type that carries its executor. halo::InlineExecutor resumes on
// the signalling thread, inside the timepoint callback, and is for
// applications that ask for exactly that: the coroutine must then not block
// until its next suspension.
//
// A failure is thrown at the co_await as a halo::Error carrying the failed
// semaphore's status. Destroying a coroutine suspended in an await cancels
// its timepoints (race-free) and drops a resumption already posted but not
// run; do it on the executor's thread, as with any coroutine that an
// executor may resume.
#ifndef HALO_AWAIT_HPP_
#define HALO_AWAIT_HPP_

#include <atomic>
#include <concepts>
#include <condition_variable>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <mutex>
#include <utility>
#include <vector>

#include "halo/halo.hpp"

namespace halo {

// Where an awaiting coroutine resumes: post() runs the function later, on a
// thread the executor picks; it must not block the caller for long (it is
// called from a timepoint callback).
template <typename E>
concept Executor = requires(E& executor, std::function<void()> function) {
  executor.post(std::move(function));
};

// Resumes on the thread that reached the last timepoint, inside its
// callback. Only for coroutines that do not block before they suspend again.
// An await that ends with timepoints still registered (when_any, or one
// ended by a failure) cancels them there, inside the callback, which
// semaphore.h allows only where no other thread signals or fails those
// semaphores meanwhile: two such cancels on two threads could wait for each
// other. Use a posting executor for those awaits when other threads signal.
struct InlineExecutor {
  void post(std::function<void()> function) const { function(); }
};

namespace detail {

// One await in flight: the timepoints of one or more fences (groups), the
// coroutine to resume and the outcome, settled by the first group reached
// or the first failure. Shared by the awaiter and each resumption posted,
// so that neither outlives what it touches.
class AwaitState : public std::enable_shared_from_this<AwaitState> {
 public:
  using Post = std::function<void(std::function<void()>)>;

  AwaitState(const std::vector<Fence>& groups, Post post) : post_(std::move(post)) {
    for (std::size_t group = 0; group < groups.size(); ++group) {
      auto timepoints = groups[group].timepoints();
      if (timepoints.empty() && empty_group_ == kNone) empty_group_ = group;
      group_pending_.push_back(std::make_unique<std::atomic<std::size_t>>(timepoints.size()));
      for (auto& [semaphore, value] : timepoints) {
        auto entry = std::make_unique<Entry>();
        entry->state = this;
        entry->group = group;
        entry->semaphore = std::move(semaphore);
        entry->timepoint.struct_size = sizeof(halo_timepoint_t);
        entry->timepoint.value = value;
        entry->timepoint.callback = &AwaitState::on_timepoint;
        entry->timepoint.user_data = entry.get();
        entries_.push_back(std::move(entry));
      }
    }
  }
  AwaitState(const AwaitState&) = delete;
  AwaitState& operator=(const AwaitState&) = delete;
  ~AwaitState() { cancel(); }

  // True when a group has no timepoints: reached before anything is asked.
  bool ready_at_once() {
    if (empty_group_ == kNone) return false;
    finish(nullptr, empty_group_);
    return true;
  }

  // Registers the timepoints; |handle| is resumed through the executor once
  // settled. Returns false, posting nothing, when the await settled while
  // registering (a value already reached or failed): the caller then goes
  // on without suspending.
  bool suspend(std::coroutine_handle<> handle) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      handle_ = handle;
      registering_ = true;
    }
    for (auto& entry : entries_) {
      if (settled_.load(std::memory_order_acquire)) break;
      halo_status_t status =
          halo_semaphore_acquire_timepoint(entry->semaphore.get(), &entry->timepoint);
      if (status != nullptr) {
        finish(status, entry->group);
        break;
      }
      entry->registered = true;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    registering_ = false;
    return !settled_.load(std::memory_order_acquire);
  }

  // Throws the failure, or returns the group that settled the await.
  std::size_t result() {
    if (failure_ != nullptr) throw Error(failure_.release());
    return settled_group_;
  }

  // Cancels every registered timepoint (race-free: no callback of this
  // await runs once it returns) but those whose callback this thread is
  // inside, which a timepoint may not cancel; drops a posted resumption.
  void cancel() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      abandoned_ = true;
    }
    for (auto& entry : entries_) {
      if (!entry->registered || inside_callback_of(entry.get())) continue;
      bool cancelled = false;
      halo_status_free(halo_semaphore_cancel_timepoint(entry->semaphore.get(),
                                                       &entry->timepoint, &cancelled));
    }
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  struct Entry {
    halo_timepoint_t timepoint = {};
    AwaitState* state = nullptr;
    std::size_t group = 0;
    Semaphore semaphore;
    bool registered = false;
  };

  // The callbacks running on this thread, innermost first: an inline
  // resumption may end its await (and start others) inside one.
  struct RunningCallback {
    const Entry* entry;
    const RunningCallback* outer;
  };
  static const RunningCallback*& running_callbacks() noexcept {
    static thread_local const RunningCallback* innermost = nullptr;
    return innermost;
  }
  static bool inside_callback_of(const Entry* entry) noexcept {
    for (const RunningCallback* running = running_callbacks(); running != nullptr;
         running = running->outer) {
      if (running->entry == entry) return true;
    }
    return false;
  }

  // noexcept: an executor's post() that throws ends the program rather than
  // unwinding into the plugin that runs the callback.
  static void on_timepoint(void* user_data, halo_timepoint_t*, halo_status_t status) noexcept {
    Entry* entry = static_cast<Entry*>(user_data);
    const RunningCallback running{entry, running_callbacks()};
    running_callbacks() = &running;
    AwaitState* self = entry->state;
    if (status != nullptr) {
      self->finish(status, entry->group);
    } else if (self->group_pending_[entry->group]->fetch_sub(1) == 1) {
      self->finish(nullptr, entry->group);
    }
    running_callbacks() = running.outer;
  }

  // Records the outcome once (a failure, or |group| reached) and posts the
  // resumption, unless the coroutine is still registering (it then does not
  // suspend) or is gone.
  void finish(halo_status_t failure, std::size_t group) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (settled_.load(std::memory_order_relaxed)) {
      halo_status_free(failure);
      return;
    }
    failure_.reset(failure);
    settled_group_ = group;
    settled_.store(true, std::memory_order_release);
    if (registering_ || abandoned_ || !handle_) return;
    // Held until post_ returns: an inline resumption may drop the awaiter's
    // reference to this state while post_ still runs.
    std::shared_ptr<AwaitState> self = shared_from_this();
    lock.unlock();
    post_([self] { self->resume(); });
  }

  void resume() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (abandoned_) return;
    }
    handle_.resume();
  }

  const Post post_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::unique_ptr<std::atomic<std::size_t>>> group_pending_;
  std::size_t empty_group_ = kNone;
  std::atomic<bool> settled_{false};
  std::mutex mutex_;
  std::coroutine_handle<> handle_;  // Guarded by mutex_.
  bool registering_ = false;        // Guarded by mutex_.
  bool abandoned_ = false;          // Guarded by mutex_.
  StatusPtr failure_;               // Written once, before settled_.
  std::size_t settled_group_ = 0;   // Written once, before settled_.
};

// The awaiter of reached() and when_any(): |Result| is void or the index
// of the fence that settled it. Cancels its await when destroyed.
template <typename Result>
class FenceAwaiter {
 public:
  FenceAwaiter(std::vector<Fence> groups, AwaitState::Post post)
      : groups_(std::move(groups)), post_(std::move(post)) {}
  FenceAwaiter(FenceAwaiter&&) = default;
  FenceAwaiter(const FenceAwaiter&) = delete;
  FenceAwaiter& operator=(const FenceAwaiter&) = delete;
  ~FenceAwaiter() {
    if (state_ != nullptr) state_->cancel();
  }

  bool await_ready() {
    state_ = std::make_shared<AwaitState>(groups_, post_);
    return state_->ready_at_once();
  }
  bool await_suspend(std::coroutine_handle<> handle) { return state_->suspend(handle); }
  Result await_resume() {
    const std::size_t group = state_->result();
    if constexpr (!std::is_void_v<Result>) return group;
  }

 private:
  std::vector<Fence> groups_;
  AwaitState::Post post_;
  std::shared_ptr<AwaitState> state_;
};

template <Executor E>
AwaitState::Post post_to(E& executor) {
  return [&executor](std::function<void()> function) { executor.post(std::move(function)); };
}

}  // namespace detail

// Awaits every timepoint of |fence| (as it stands now), resuming on
// |executor|, which must outlive the await.
template <Executor E>
detail::FenceAwaiter<void> reached(const Fence& fence, E& executor) {
  return detail::FenceAwaiter<void>({fence}, detail::post_to(executor));
}

// Awaits |semaphore| reaching |value|.
template <Executor E>
detail::FenceAwaiter<void> semaphore_reached(const Semaphore& semaphore, std::uint64_t value,
                                             E& executor) {
  return reached(Fence::at(semaphore, value), executor);
}

// One fence holding every timepoint of |fences|: awaiting it is awaiting all.
inline Fence when_all(std::initializer_list<Fence> fences) {
  Fence all = Fence::create();
  for (const Fence& fence : fences) all.join(fence);
  return all;
}

// Awaits the first of |fences| to be reached and returns its index; a
// failure of any member of any fence is thrown instead, as in
// halo_semaphores_wait's ANY mode. An empty fence is reached at once (its
// index is returned without looking at the others). Throws INVALID_ARGUMENT
// for no fences at all, which nothing would ever settle.
template <Executor E>
detail::FenceAwaiter<std::size_t> when_any(std::vector<Fence> fences, E& executor) {
  if (fences.empty()) {
    throw Error(HALO_STATUS_INVALID_ARGUMENT, "halo::when_any: no fences to await");
  }
  return detail::FenceAwaiter<std::size_t>(std::move(fences), detail::post_to(executor));
}

namespace detail {

// `co_await fence`: the executor comes from the awaiting coroutine's
// promise, known only at suspension.
class PromiseExecutorAwaiter {
 public:
  explicit PromiseExecutorAwaiter(Fence fence) : fence_(std::move(fence)) {}

  bool await_ready() const noexcept { return false; }
  template <typename Promise>
  bool await_suspend(std::coroutine_handle<Promise> handle) {
    static_assert(requires { handle.promise().executor(); },
                  "co_await on a halo::Fence needs a promise with executor(); "
                  "use halo::reached(fence, executor) elsewhere");
    inner_ = std::make_unique<FenceAwaiter<void>>(std::vector<Fence>{fence_},
                                                  post_to(handle.promise().executor()));
    if (inner_->await_ready()) return false;
    return inner_->await_suspend(handle);
  }
  void await_resume() { inner_->await_resume(); }

 private:
  Fence fence_;
  std::unique_ptr<FenceAwaiter<void>> inner_;
};

}  // namespace detail

// `co_await fence` in a coroutine whose promise has an executor() member
// returning the executor to resume on.
inline detail::PromiseExecutorAwaiter operator co_await(const Fence& fence) {
  return detail::PromiseExecutorAwaiter(fence);
}

// Any executor behind one type, for a promise to store.
class AnyExecutor {
 public:
  template <Executor E>
  explicit AnyExecutor(E& executor)
      : post_([&executor](std::function<void()> function) {
          executor.post(std::move(function));
        }) {}
  void post(std::function<void()> function) const { post_(std::move(function)); }

 private:
  std::function<void(std::function<void()>)> post_;
};

// An executor whose functions run on the thread that calls run_until or
// run_one: a plain event loop for a program's main thread. Thread-safe.
class RunLoop {
 public:
  void post(std::function<void()> function) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(function));
    }
    posted_.notify_one();
  }
  // Runs one posted function, blocking (not spinning) until there is one.
  void run_one() {
    std::unique_lock<std::mutex> lock(mutex_);
    posted_.wait(lock, [&] { return !queue_.empty(); });
    std::function<void()> function = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    function();
  }
  // Runs posted functions until |done()| holds.
  template <typename Predicate>
  void run_until(Predicate done) {
    while (!done()) run_one();
  }
  std::size_t pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<std::function<void()>> queue_;
};

// An eager coroutine that resumes its awaits on the executor given as its
// first parameter (so `co_await fence` works inside it), and keeps the
// exception it ended with. Destroying the Task destroys the coroutine,
// cancelling the await it is suspended in; do it on the executor's thread.
class Task {
 public:
  class promise_type {
   public:
    template <Executor E, typename... Args>
    explicit promise_type(E& executor, Args&&...) : executor_(executor) {}
    // A member coroutine: *this first, then the executor.
    template <typename Self, Executor E, typename... Args>
    promise_type(Self&&, E& executor, Args&&...) : executor_(executor) {}

    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { error_ = std::current_exception(); }
    AnyExecutor& executor() noexcept { return executor_; }

   private:
    friend class Task;
    AnyExecutor executor_;
    std::exception_ptr error_;
  };

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Task& operator=(Task&& other) noexcept {
    Task(std::move(other)).swap(*this);
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }
  void swap(Task& other) noexcept { std::swap(handle_, other.handle_); }

  // True once the coroutine ran to its end (or threw).
  bool done() const noexcept { return !handle_ || handle_.done(); }
  // Rethrows what the coroutine ended with, if anything.
  void rethrow() const {
    if (handle_ && handle_.promise().error_) std::rethrow_exception(handle_.promise().error_);
  }

 private:
  explicit Task(std::coroutine_handle<promise_type> handle) noexcept : handle_(handle) {}
  std::coroutine_handle<promise_type> handle_;
};

}  // namespace halo

#endif  // HALO_AWAIT_HPP_
