// Pending submissions over timepoints of any plugin's semaphores.
//
// Counting: state_ holds the waits not yet settled, a REGISTERING bit that
// start() clears once every timepoint is registered, and a FAILED bit. Each
// event (a wait settles, a failure, registration ends) is one compare-and-
// swap, and the one event whose swap turns "not ready" into "ready" fires the
// submission. So it fires exactly once, never while start() is registering,
// early on a failure, and nobody who did not fire reads the submission after
// their swap: once it fires, the worker may free it.
#include "halo/sdk/scheduler.hpp"

#include "halo/sdk/queue_signal.hpp"

namespace halo::sdk {
namespace {

// The fields of PendingSubmission::state_.
constexpr uint64_t kFailed = 1;
constexpr uint64_t kRegistering = 2;
constexpr unsigned kWaitShift = 2;
constexpr uint64_t kWaitOne = uint64_t{1} << kWaitShift;

// Rounds |offset| up to |alignment| (a power of two).
size_t align_up(size_t offset, size_t alignment) noexcept {
  return (offset + alignment - 1) & ~(alignment - 1);
}

// Appends |count| elements of |element_size| at |alignment| to |*total| and
// returns where they start; throws std::bad_alloc on overflow.
size_t reserve(size_t* total, size_t count, size_t element_size,
               size_t alignment) {
  size_t limit = std::numeric_limits<size_t>::max() / 2;
  if (count > limit / element_size) throw std::bad_alloc();
  size_t start = align_up(*total, alignment);
  if (start > limit - count * element_size) throw std::bad_alloc();
  *total = start + count * element_size;
  return start;
}

template <class T>
T* at(void* base, size_t offset) noexcept {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

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

PendingSubmission::Layout PendingSubmission::plan(
    size_t object_size, const SemaphoreList& waits,
    const SemaphoreList& signals) {
  // The arrays follow the object; the allocation itself carries T's
  // alignment, and each array is aligned for its element type.
  Layout layout;
  size_t total = object_size;
  layout.timepoints = reserve(&total, waits.count, sizeof(halo_timepoint_t),
                              alignof(halo_timepoint_t));
  layout.done = reserve(&total, waits.count, sizeof(std::atomic<uint32_t>),
                        alignof(std::atomic<uint32_t>));
  layout.wait_semaphores = reserve(&total, waits.count,
                                   sizeof(halo_semaphore_t*),
                                   alignof(halo_semaphore_t*));
  layout.wait_values =
      reserve(&total, waits.count, sizeof(uint64_t), alignof(uint64_t));
  layout.signal_semaphores = reserve(&total, signals.count,
                                     sizeof(halo_semaphore_t*),
                                     alignof(halo_semaphore_t*));
  layout.signal_values =
      reserve(&total, signals.count, sizeof(uint64_t), alignof(uint64_t));
  layout.total = total;
  return layout;
}

PendingSubmission::PendingSubmission(const Init& init) noexcept
    : host_(init.host),
      allocation_(init.allocation),
      timepoints_(at<halo_timepoint_t>(init.allocation,
                                       init.layout.timepoints)),
      done_(at<std::atomic<uint32_t>>(init.allocation, init.layout.done)),
      state_((static_cast<uint64_t>(init.waits.count) << kWaitShift) |
             kRegistering) {
  auto* wait_semaphores =
      at<halo_semaphore_t*>(init.allocation, init.layout.wait_semaphores);
  auto* wait_values = at<uint64_t>(init.allocation, init.layout.wait_values);
  auto* signal_semaphores =
      at<halo_semaphore_t*>(init.allocation, init.layout.signal_semaphores);
  auto* signal_values =
      at<uint64_t>(init.allocation, init.layout.signal_values);
  for (size_t i = 0; i < init.waits.count; ++i) {
    wait_semaphores[i] = init.waits.semaphores[i];
    wait_values[i] = init.waits.values[i];
    host_.retain(as_object(wait_semaphores[i]));
    ::new (&done_[i]) std::atomic<uint32_t>(0);
    halo_timepoint_t* timepoint = ::new (&timepoints_[i]) halo_timepoint_t{};
    timepoint->struct_size = sizeof(halo_timepoint_t);
    timepoint->value = wait_values[i];
    timepoint->callback = &PendingSubmission::on_timepoint;
    timepoint->user_data = this;
  }
  for (size_t i = 0; i < init.signals.count; ++i) {
    signal_semaphores[i] = init.signals.semaphores[i];
    signal_values[i] = init.signals.values[i];
    host_.retain(as_object(signal_semaphores[i]));
  }
  waits_ = {init.waits.count, wait_semaphores, wait_values};
  signals_ = {init.signals.count, signal_semaphores, signal_values};
}

PendingSubmission::~PendingSubmission() {
  release_semaphores();
  host_.free(failure_.load(std::memory_order_acquire));
}

void PendingSubmission::destroy(PendingSubmission* submission) noexcept {
  if (submission == nullptr) return;
  Host host = submission->host_;
  void* allocation = submission->allocation_;
  submission->~PendingSubmission();
  host.deallocate(allocation);
}

void PendingSubmission::release_semaphores() noexcept {
  if (!semaphores_held_) return;
  semaphores_held_ = false;
  for (size_t i = 0; i < waits_.count; ++i) {
    host_.release(as_object(waits_.semaphores[i]));
  }
  for (size_t i = 0; i < signals_.count; ++i) {
    host_.release(as_object(signals_.semaphores[i]));
  }
}

bool PendingSubmission::settle(uint64_t remove, uint64_t add) noexcept {
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

void PendingSubmission::start(ReadyFunction ready) noexcept {
  ready_ = ready;
  for (size_t i = 0; i < waits_.count; ++i) {
    halo_semaphore_t* semaphore = waits_.semaphores[i];
    halo_status_t status =
        semaphore_vtable(semaphore)->acquire_timepoint(semaphore,
                                                       &timepoints_[i]);
    if (status != HALO_OK) {
      // The callback will never run for this wait: settle it here. While
      // kRegistering is set nothing can become ready, so no one fires yet.
      record_failure(host_.annotate(status, "register wait timepoint"));
      done_[i].store(1, std::memory_order_release);
      settle(kWaitOne, kFailed);
    }
  }
  // Ending registration may make the submission ready; if it does not, a
  // callback will, and may free the submission at once: touch nothing more.
  if (settle(kRegistering, 0)) ready_(this);
}

void PendingSubmission::on_timepoint(void* user_data,
                                     halo_timepoint_t* timepoint,
                                     halo_status_t status) noexcept {
  auto* self = static_cast<PendingSubmission*>(user_data);
  size_t index = static_cast<size_t>(timepoint - self->timepoints_);
  bool failed = status != HALO_OK;
  if (failed) self->record_failure(status);
  if (self->settle(kWaitOne, failed ? kFailed : 0)) self->ready_(self);
  // The last touch of the submission, even after ready_ handed it on: the
  // worker's finish_waits cancels every wait not marked done, and a cancel
  // waits for a callback that is still running, so the submission outlives
  // this store.
  self->done_[index].store(1, std::memory_order_release);
}

void PendingSubmission::record_failure(halo_status_t status) noexcept {
  halo_status_t expected = nullptr;
  if (!failure_.compare_exchange_strong(expected, status,
                                        std::memory_order_seq_cst,
                                        std::memory_order_acquire)) {
    host_.free(status);  // Keep the first failure only.
  }
}

void PendingSubmission::finish_waits() noexcept {
  for (size_t i = 0; i < waits_.count; ++i) {
    if (done_[i].load(std::memory_order_acquire) != 0) continue;
    halo_semaphore_t* semaphore = waits_.semaphores[i];
    // Race-free by contract: on return the callback either ran to completion
    // or never will, so nothing touches this submission afterwards.
    semaphore_vtable(semaphore)->cancel_timepoint(semaphore, &timepoints_[i]);
  }
}

void PendingSubmission::complete() noexcept {
  finish_waits();
  halo_status_t failure = this->failure();
  if (failure != nullptr) {
    fail_semaphores(host_, signals_, failure);
    return;
  }
  signal_semaphores(host_, signals_);
}

}  // namespace halo::sdk
