// The pending device signals of one opencl semaphore, and the order they
// land in.
//
// A submission that will signal an opencl semaphore of its own context
// links a DeviceSignal here while its completion event is pending. The list
// serves two purposes:
//   * chaining: a later submission of the context that waits for a value an
//     issued signal will reach waits on that signal's event directly, and a
//     host thread waiting without a deadline waits on it too (see
//     Semaphore::await_device_signal);
//   * ordering: a queue signal must be above the payload when it lands, and
//     one that is not fails the semaphore (DESIGN.md §5). OpenCL does not
//     order the CL_COMPLETE callbacks of different events, and a waiting
//     host thread lands a signal as soon as its event completes, so the
//     signals of work the device completed in order could reach the
//     semaphore out of order. Before a signal lands here, every lower
//     issued signal whose event is already CL_COMPLETE lands first.
//
// Landing. Each linked signal is PENDING, then READY (its event is known
// complete and one thread has taken it on: its owner's callback, a waiting
// host thread, or the lander finding its event complete), then DONE
// (landed and unlinked, or unlinked by its owner without landing). One
// thread at a time, the lander, lands the READY signals, lowest first;
// another thread that makes a signal READY while a lander is at work leaves
// it to that lander, which looks again before it stops. So every READY
// signal is landed exactly once, no thread ever waits for another, and a
// chain of any length lands in a loop, not a recursion. A READY signal's
// submission is held (SignalSource::hold) until its signal has landed, so it
// outlives its owner's own completion.
//
// Before landing the lowest READY signal, the lander checks the PENDING
// issued signals below it for a complete event (clGetEventInfo, which never
// blocks), from the highest down: a lower signal whose work completed
// before a higher one's is then seen complete too. Those it finds complete
// become READY and land first. A lower signal whose work is not complete
// yet really is overtaken: when it lands, the semaphore fails.
//
// No OpenCL call is ever made with the list's lock held: implementations
// run completion callbacks, which take this lock, while holding the event's
// own lock (PoCL 3.1 does), and clRetainEvent and clGetEventInfo take that
// lock. A callback makes all its submission's signals READY before it lands
// any of them, and the lander only checks the events of PENDING signals, so
// no two callbacks can each wait for the other's event lock.
#ifndef HALO_OPENCL_DEVICE_SIGNALS_HPP_
#define HALO_OPENCL_DEVICE_SIGNALS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "cl_library.hpp"
#include "halo/sdk/host.hpp"
#include "halo/semaphore.h"

namespace halo::cl {

// What a device signal needs of the work that will raise it: the queue's
// submission implements it, so semaphores never see the queue.
class SignalSource {
 public:
  // Keeps the source (and the signal's storage) alive until the matching
  // drop. Called with the list's lock held while the signal is linked.
  virtual void hold() noexcept = 0;
  // Lets go of a hold.
  virtual void drop() noexcept = 0;
  // On a holder's thread: blocks until the work is done; whether it
  // succeeded.
  virtual bool await_work() noexcept = 0;
  // A copy of the failure of a semaphore the work chained on (it fails the
  // signal though the work ran), or OK. While held.
  virtual halo_status_t chained_failure() noexcept = 0;

 protected:
  ~SignalSource() = default;
};

// A pending device signal: signal |index| of |source|, enqueued on
// |context|, whose completion event |event| will raise the semaphore to
// |value|. Storage belongs to the submission; the submission sets the
// fields before linking it and releases the event only once it is DONE.
struct DeviceSignal {
  enum class State : uint8_t { kPending, kReady, kDone };

  uint64_t value = 0;
  size_t index = 0;
  cl_context context = nullptr;
  cl_event event = nullptr;
  // Set once every wait of the submission is settled on the device side,
  // so its event completes without any host action. Only such a signal may
  // be chained on: a submission still waiting on the host could be waiting,
  // transitively, for the very submission that would chain on it.
  const std::atomic<bool>* issued = nullptr;
  SignalSource* source = nullptr;

  // The list's own, guarded by its lock.
  DeviceSignal* previous = nullptr;
  DeviceSignal* next = nullptr;
  State state = State::kDone;
  // The lander has checked the lower PENDING signals since this one became
  // READY.
  bool lower_checked = false;
  // The lander's own while it checks events outside the lock.
  DeviceSignal* next_candidate = nullptr;
  bool seen_complete = false;
};

class DeviceSignals {
 public:
  DeviceSignals(sdk::Host host, const Api* api) noexcept
      : host_(host), api_(api) {}
  DeviceSignals(const DeviceSignals&) = delete;
  DeviceSignals& operator=(const DeviceSignals&) = delete;

  // Links |signal| as PENDING. The list is kept in ascending order of value;
  // signals come in ascending order as a rule, so this is O(1) then.
  // Thread-safe.
  void link(DeviceSignal* signal) noexcept;
  // For the owner: unlinks |signal| if it is still PENDING. A READY one is
  // left to the lander, which unlinks it once landed. Thread-safe.
  void unlink(DeviceSignal* signal) noexcept;

  // Returns a new reference to the completion event of the issued signal of
  // |context| with the lowest value at or above |value|, or NULL when there
  // is none. Costs O(linked signals at or above |value|), so a chain of
  // submissions each waiting on the one before costs O(1) a link.
  // Thread-safe.
  cl_event find_event(cl_context context, uint64_t value) noexcept;
  // Like find_event, but returns the signal itself with its source held
  // (the caller drops it), or NULL.
  DeviceSignal* hold_lowest_issued(cl_context context,
                                   uint64_t value) noexcept;

  // Makes |signal| READY if it is still PENDING: its event has completed
  // successfully. Does nothing for a signal another thread has taken on or
  // that is unlinked. Thread-safe.
  void mark_ready(DeviceSignal* signal) noexcept;
  // Lands every READY signal on |semaphore| (the semaphore this list
  // belongs to), lowest first, unless another thread is landing them
  // already: that thread then lands them before it stops. Never blocks on
  // another thread. Thread-safe.
  void land_ready(halo_semaphore_t* semaphore) noexcept;

 private:
  // The issued signal of |context| with the lowest value at or above
  // |value|, or NULL. Called with mutex_ held.
  DeviceSignal* lowest_issued(cl_context context, uint64_t value) noexcept;
  // The READY signal with the lowest value, or NULL. Called with mutex_
  // held.
  DeviceSignal* lowest_ready() noexcept;
  // Makes PENDING |signal| READY and holds its source. Called with
  // mutex_ held.
  void make_ready(DeviceSignal* signal) noexcept;
  void remove(DeviceSignal* signal) noexcept;
  // Makes READY every PENDING issued signal below |lowest| whose event is
  // complete. Called by the lander with |lock| held; releases it meanwhile.
  void check_lower(DeviceSignal* lowest,
                   std::unique_lock<std::mutex>& lock) noexcept;
  // Signals |semaphore| to |signal|'s value, or fails it when a semaphore
  // the submission chained on has failed. Called without the lock.
  void land(DeviceSignal* signal, halo_semaphore_t* semaphore) noexcept;

  sdk::Host host_;
  const Api* api_;
  std::mutex mutex_;
  DeviceSignal* head_ = nullptr;  // The lowest value first.
  DeviceSignal* tail_ = nullptr;
  size_t ready_count_ = 0;
  // A thread is landing READY signals.
  bool landing_ = false;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_DEVICE_SIGNALS_HPP_
