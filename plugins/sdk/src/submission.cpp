// Submissions: one allocation, the readiness word and the timepoint
// callbacks.
//
// Counting: state_ holds the host-side waits not yet settled, a REGISTERING
// bit that register_waits clears once every timepoint is registered, and a
// FAILED bit. Each event (a wait settles, a failure, registration ends) is
// one compare-and-swap, and the one event whose swap turns "not ready" into
// "ready" fires the submission. So it fires exactly once, never while
// register_waits is registering, early on a failure, and nobody who did not
// fire reads the submission after their swap: once it fires, the queue may
// free it.
#include "halo/sdk/submission.hpp"

#include "halo/sdk/library_pin.hpp"
#include "halo/sdk/queue_signal.hpp"

namespace halo::sdk {
namespace {

constexpr uint64_t kFailed = 1;
constexpr uint64_t kRegistering = 2;
constexpr unsigned kWaitShift = 2;
constexpr uint64_t kWaitOne = uint64_t{1} << kWaitShift;

}  // namespace

void signal_semaphores(Host host, const SemaphoreList& list) noexcept {
  for (size_t i = 0; i < list.count; ++i) {
    signal_from_queue(host, list.semaphores[i], list.values[i], i);
  }
}

void fail_semaphores(Host host, const SemaphoreList& list,
                     halo_status_t status) noexcept {
  for (size_t i = 0; i < list.count; ++i) {
    halo_semaphore_t* semaphore = list.semaphores[i];
    semaphore_vtable(semaphore)->fail(semaphore, host.clone(status));
  }
}

halo_status_t check_single_queue_affinity(
    Host host, const halo_queue_execute_info_t& info) noexcept {
  if ((info.affinity & 1u) != 0) return HALO_OK;
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "halo_device_queue_execute: info->affinity 0x%llx "
                          "selects no queue of this device (it has queue 0 "
                          "only)",
                          static_cast<unsigned long long>(info.affinity));
}

Submission::Layout Submission::plan(AllocationPlan& plan,
                                    const SubmissionLists& lists) {
  Layout layout;
  layout.waits = plan.reserve<Wait>(lists.waits.count);
  layout.signals = plan.reserve<Signal>(lists.signals.count);
  layout.command_buffers =
      plan.reserve<halo_command_buffer_t*>(lists.command_buffer_count);
  return layout;
}

Submission::Submission(const Init& init) noexcept
    : host_(init.host),
      device_(init.device),
      allocation_(init.allocation),
      allocation_size_(init.allocation_size),
      wait_count_(init.lists.waits.count),
      waits_(init.at<Wait>(init.layout.waits)),
      signal_count_(init.lists.signals.count),
      signals_(init.at<Signal>(init.layout.signals)),
      command_buffer_count_(init.lists.command_buffer_count),
      command_buffers_(
          init.at<halo_command_buffer_t*>(init.layout.command_buffers)),
      state_(kRegistering) {
  if (device_ != nullptr) host_.retain(as_object(device_));
  const SubmissionLists& lists = init.lists;
  for (size_t i = 0; i < wait_count_; ++i) {
    Wait* wait = ::new (&waits_[i]) Wait();
    wait->semaphore = lists.waits.semaphores[i];
    wait->value = lists.waits.values[i];
    wait->owner = this;
    wait->timepoint.struct_size = sizeof(halo_timepoint_t);
    wait->timepoint.value = wait->value;
    wait->timepoint.callback = &Submission::on_timepoint;
    wait->timepoint.user_data = wait;
    host_.retain(as_object(wait->semaphore));
  }
  for (size_t i = 0; i < signal_count_; ++i) {
    Signal* signal = ::new (&signals_[i]) Signal();
    signal->semaphore = lists.signals.semaphores[i];
    signal->value = lists.signals.values[i];
    host_.retain(as_object(signal->semaphore));
  }
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    command_buffers_[i] = lists.command_buffers[i];
    host_.retain(as_object(command_buffers_[i]));
  }
}

Submission::~Submission() {
  release_resources();
  for (size_t i = 0; i < wait_count_; ++i) waits_[i].~Wait();
  host_.free(failure_.load(std::memory_order_acquire));
}

void Submission::destroy(Submission* submission,
                         ReturnedAllocations* returned) noexcept {
  if (submission == nullptr) return;
  Host host = submission->host_;
  void* allocation = submission->allocation_;
  const size_t allocation_size = submission->allocation_size_;
  halo_device_t* device = submission->device_;
  submission->~Submission();
  if (returned != nullptr) {
    returned->give_back(allocation, allocation_size);
  } else {
    host.deallocate(allocation);
  }
  // Last, once nothing of the submission is left: possibly the device's
  // last reference, which destroys its queue (a queue's worker may be the
  // caller; see CompletionWorker).
  if (device != nullptr) host.release(as_object(device));
}

void Submission::release_device_unless_last() noexcept {
  if (device_ != nullptr && Host::release_unless_last(as_object(device_))) {
    device_ = nullptr;
  }
}

bool Submission::settle(uint64_t remove, uint64_t add) noexcept {
  auto ready = [](uint64_t state) {
    return (state & kRegistering) == 0 &&
           ((state >> kWaitShift) == 0 || (state & kFailed) != 0);
  };
  uint64_t old_state = state_.load(std::memory_order_acquire);
  uint64_t new_state;
  do {
    new_state = (old_state - remove) | add;
  } while (!state_.compare_exchange_weak(old_state, new_state,
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire));
  return !ready(old_state) && ready(new_state);
}

bool Submission::register_waits(ReadyFunction on_ready,
                                AcquireFunction acquire) noexcept {
  on_ready_ = on_ready;
  uint64_t pending = 0;
  for (size_t i = 0; i < wait_count_; ++i) {
    if (waits_[i].state.load(std::memory_order_relaxed) == kHost) ++pending;
  }
  state_.fetch_add(pending << kWaitShift, std::memory_order_acq_rel);
  for (size_t i = 0; i < wait_count_; ++i) {
    Wait& wait = waits_[i];
    if (wait.state.load(std::memory_order_relaxed) != kHost) continue;
    wait.done.store(0, std::memory_order_relaxed);
    halo_semaphore_t* semaphore = wait.semaphore;
    halo_status_t status = acquire != nullptr
                               ? acquire(this, semaphore, &wait.timepoint)
                               : semaphore_vtable(semaphore)->acquire_timepoint(
                                     semaphore, &wait.timepoint);
    if (status != HALO_OK) {
      // No callback will run for this wait: settle it here. While
      // REGISTERING is set nothing can become ready, so no one fires yet.
      record_failure(host_.annotate(status, "register wait timepoint"));
      wait.state.store(kSettled, std::memory_order_release);
      wait.done.store(1, std::memory_order_release);
      settle(kWaitOne, kFailed);
      continue;
    }
    // The callback may have settled it already; then it stays settled.
    uint32_t expected = kHost;
    wait.state.compare_exchange_strong(expected, kRegistered,
                                       std::memory_order_acq_rel);
  }
  // Ending registration may make the submission ready; if it does not, a
  // callback will, and the queue may free the submission at once.
  return settle(kRegistering, 0);
}

void Submission::on_timepoint(void* user_data, halo_timepoint_t*,
                              halo_status_t status) noexcept {
  // The queue may release the plugin's last object while this thread is
  // still on its way out of the callback.
  pin_library_to_current_thread();
  auto* wait = static_cast<Wait*>(user_data);
  Submission* self = wait->owner;
  wait->state.store(kSettled, std::memory_order_release);
  const bool failed = status != HALO_OK;
  if (failed) self->record_failure(status);
  if (self->settle(kWaitOne, failed ? kFailed : 0)) self->on_ready_(self);
  // The last touch, even after on_ready handed the submission on:
  // finish_waits cancels every wait not marked done, and a cancel waits for
  // a callback still running, so the submission outlives this store.
  wait->done.store(1, std::memory_order_release);
}

bool Submission::convert_to_native(size_t index) noexcept {
  Wait& wait = waits_[index];
  if (wait.state.load(std::memory_order_acquire) != kRegistered) return false;
  halo_semaphore_t* semaphore = wait.semaphore;
  if (!semaphore_vtable(semaphore)->cancel_timepoint(semaphore,
                                                     &wait.timepoint)) {
    return false;  // The callback ran and settled the wait itself.
  }
  wait.state.store(kNative, std::memory_order_release);
  wait.done.store(1, std::memory_order_release);
  return settle(kWaitOne, 0);
}

void Submission::record_failure(halo_status_t status) noexcept {
  halo_status_t expected = nullptr;
  if (!failure_.compare_exchange_strong(expected, status,
                                        std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    host_.free(status);  // The first failure wins.
  }
}

void Submission::finish_waits() noexcept {
  for (size_t i = 0; i < wait_count_; ++i) {
    Wait& wait = waits_[i];
    if (wait.done.load(std::memory_order_acquire) != 0) continue;
    halo_semaphore_t* semaphore = wait.semaphore;
    // Race-free by contract: on return the callback either ran to
    // completion or never will, so nothing touches this submission after.
    semaphore_vtable(semaphore)->cancel_timepoint(semaphore, &wait.timepoint);
    wait.done.store(1, std::memory_order_release);
  }
}

void Submission::fail_signals(halo_status_t status) noexcept {
  for (size_t i = 0; i < signal_count_; ++i) {
    halo_semaphore_t* semaphore = signals_[i].semaphore;
    semaphore_vtable(semaphore)->fail(semaphore, host_.clone(status));
  }
}

void Submission::signal_host_signals() noexcept {
  for (size_t i = 0; i < signal_count_; ++i) {
    if (signals_[i].native) continue;
    signal_from_queue(host_, signals_[i].semaphore, signals_[i].value, i);
  }
}

void Submission::complete() noexcept {
  finish_waits();
  halo_status_t failure = this->failure();
  if (failure != HALO_OK) {
    fail_signals(failure);
  } else {
    signal_host_signals();
  }
}

void Submission::release_resources() noexcept {
  if (!resources_held_) return;
  resources_held_ = false;
  // A wait's callback may still be on its way out on the thread that
  // signalled it: wait for it while the semaphore is still held, since this
  // reference may be its last.
  finish_waits();
  for (size_t i = 0; i < wait_count_; ++i) {
    host_.release(as_object(waits_[i].semaphore));
  }
  for (size_t i = 0; i < signal_count_; ++i) {
    host_.release(as_object(signals_[i].semaphore));
  }
  for (size_t i = 0; i < command_buffer_count_; ++i) {
    host_.release(as_object(command_buffers_[i]));
  }
}

}  // namespace halo::sdk
