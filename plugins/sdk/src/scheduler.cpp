// Pending submissions over timepoints of any plugin's semaphores.
//
// Counting: pending_ starts at wait_count + 1. Every wait callback takes one
// away; start() takes the extra one after registering every timepoint, so
// ready cannot run while start is still registering. A failure fires ready
// early, but only once registration is over (registered_); the failing
// callback and start() form a Dekker pair over failure_ and registered_, so
// at least one of them sees the other and fires. fired_ makes it exactly once.
#include "halo/sdk/scheduler.hpp"

#include <cstdio>

namespace halo::sdk {
namespace {

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

halo_status_t signal_semaphores(Host host, const SemaphoreList& list) noexcept {
  halo_status_t first_error = HALO_OK;
  for (size_t i = 0; i < list.count; ++i) {
    halo_semaphore_t* semaphore = list.semaphores[i];
    halo_status_t status =
        semaphore_vtable(semaphore)->signal(semaphore, list.values[i]);
    if (status == HALO_OK) continue;
    if (first_error == HALO_OK) {
      char prefix[64];
      std::snprintf(prefix, sizeof(prefix), "signal semaphore %zu", i);
      first_error = host.annotate(status, prefix);
    } else {
      host.free(status);
    }
  }
  return first_error;
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
      pending_(init.waits.count + 1) {
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

void PendingSubmission::start(ReadyFunction ready) noexcept {
  ready_ = ready;
  for (size_t i = 0; i < waits_.count; ++i) {
    halo_semaphore_t* semaphore = waits_.semaphores[i];
    halo_status_t status =
        semaphore_vtable(semaphore)->acquire_timepoint(semaphore,
                                                       &timepoints_[i]);
    if (status != HALO_OK) {
      // The callback will never run for this wait: account for it here.
      record_failure(host_.annotate(status, "register wait timepoint"));
      pending_.fetch_sub(1, std::memory_order_acq_rel);
      done_[i].store(1, std::memory_order_release);
    }
  }
  registered_.store(true, std::memory_order_seq_cst);
  bool last = pending_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  if (last || failure_.load(std::memory_order_seq_cst) != nullptr) fire();
}

void PendingSubmission::on_timepoint(void* user_data,
                                     halo_timepoint_t* timepoint,
                                     halo_status_t status) noexcept {
  auto* self = static_cast<PendingSubmission*>(user_data);
  size_t index = static_cast<size_t>(timepoint - self->timepoints_);
  bool failed = status != HALO_OK;
  if (failed) self->record_failure(status);
  bool last = self->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  if (last || (failed && self->registered_.load(std::memory_order_seq_cst))) {
    self->fire();
  }
  // The last touch of the submission: finish_waits trusts it, and cancels
  // (which waits for running callbacks) every wait not marked done.
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

void PendingSubmission::fire() noexcept {
  if (fired_.exchange(true, std::memory_order_acq_rel)) return;
  ready_(this);
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

halo_status_t PendingSubmission::complete() noexcept {
  finish_waits();
  halo_status_t failure = this->failure();
  if (failure != nullptr) {
    fail_semaphores(host_, signals_, failure);
    return HALO_OK;
  }
  return signal_semaphores(host_, signals_);
}

}  // namespace halo::sdk
