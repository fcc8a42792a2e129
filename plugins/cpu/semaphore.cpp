// The cpu semaphore: vtable, blocking waits and multi-semaphore waits.
#include "semaphore.hpp"

#include <new>

#include "halo/sdk/futex.hpp"

namespace halo::cpu {
namespace {

// Timepoints a multi-wait keeps on its stack before asking the allocator.
constexpr size_t kInlineTimepoints = 8;

// --- The semaphore vtable. Every entry is noexcept C++ that cannot throw,
// --- so none needs a guard.

void destroy_semaphore(halo_object_t* object) {
  auto* semaphore = reinterpret_cast<Semaphore*>(object);
  sdk::Host host = semaphore->host;
  host.destroy(semaphore);
}

halo_status_t query(halo_semaphore_t* semaphore, uint64_t* out_value) {
  return Semaphore::cast(semaphore)->timeline.query(out_value);
}

halo_status_t signal(halo_semaphore_t* semaphore, uint64_t value) {
  return Semaphore::cast(semaphore)->timeline.signal(value);
}

void fail(halo_semaphore_t* semaphore, halo_status_t status) {
  Semaphore::cast(semaphore)->timeline.fail(status);
}

halo_status_t wait(halo_semaphore_t* semaphore, uint64_t value,
                   halo_time_ns_t deadline) {
  return Semaphore::cast(semaphore)->timeline.wait(value, deadline);
}

halo_status_t acquire_timepoint(halo_semaphore_t* semaphore,
                                halo_timepoint_t* timepoint) {
  return Semaphore::cast(semaphore)->timeline.acquire(timepoint);
}

bool cancel_timepoint(halo_semaphore_t* semaphore,
                      halo_timepoint_t* timepoint) {
  return Semaphore::cast(semaphore)->timeline.cancel(timepoint);
}

halo_device_t* device_of(halo_semaphore_t* semaphore) {
  return Semaphore::cast(semaphore)->device;
}

const halo_semaphore_vtable_t kSemaphoreVtable = {
    {sizeof(halo_semaphore_vtable_t), HALO_OBJECT_TYPE_SEMAPHORE,
     &destroy_semaphore},
    &query,
    &signal,
    &fail,
    &wait,
    &acquire_timepoint,
    &cancel_timepoint,
    &device_of,
};

// Shared by a multi-wait's timepoint callbacks and the waiting thread, on
// the waiting thread's stack. Cancelling every timepoint before returning
// guarantees that no callback touches it afterwards.
struct MultiWaiter {
  sdk::Host host;
  std::atomic<uint32_t> epoch{0};
  std::atomic<size_t> reached{0};
  std::atomic<halo_status_t> failure{nullptr};

  static void on_timepoint(void* user_data, halo_timepoint_t*,
                           halo_status_t status) noexcept {
    auto* waiter = static_cast<MultiWaiter*>(user_data);
    if (status != nullptr) {
      halo_status_t expected = nullptr;
      if (!waiter->failure.compare_exchange_strong(expected, status)) {
        waiter->host.free(status);  // The first failure is reported.
      }
    } else {
      waiter->reached.fetch_add(1, std::memory_order_acq_rel);
    }
    waiter->epoch.fetch_add(1, std::memory_order_acq_rel);
    sdk::futex_wake_one(&waiter->epoch);
  }

  bool satisfied(halo_wait_mode_t mode, size_t count) const noexcept {
    size_t done = reached.load(std::memory_order_acquire);
    return mode == HALO_WAIT_MODE_ALL ? done == count : done > 0;
  }
};

// Checks every pair once without blocking: OK when |mode| is met, a copy of
// the first failure found, else NULL with |*met| false.
halo_status_t poll_all(halo_wait_mode_t mode, size_t count,
                       halo_semaphore_t* const* semaphores,
                       const uint64_t* values, bool* met) noexcept {
  size_t reached = 0;
  for (size_t i = 0; i < count; ++i) {
    WaitableTimeline& timeline = Semaphore::cast(semaphores[i])->timeline;
    uint64_t payload = timeline.payload();
    if (payload >= HALO_SEMAPHORE_FAILURE_VALUE) {
      *met = true;
      return timeline.clone_failure();
    }
    if (payload >= values[i]) ++reached;
  }
  *met = mode == HALO_WAIT_MODE_ALL ? reached == count : reached > 0;
  return HALO_OK;
}

// Blocks on one timepoint per pair; see wait_semaphores.
halo_status_t block_on_timepoints(sdk::Host host, halo_wait_mode_t mode,
                                  size_t count,
                                  halo_semaphore_t* const* semaphores,
                                  const uint64_t* values,
                                  halo_time_ns_t deadline) noexcept {
  halo_timepoint_t inline_timepoints[kInlineTimepoints];
  halo_timepoint_t* timepoints = inline_timepoints;
  if (count > kInlineTimepoints) {
    if (count > SIZE_MAX / sizeof(halo_timepoint_t)) {
      return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                   "too many semaphores to wait on");
    }
    timepoints = static_cast<halo_timepoint_t*>(host.allocate(
        count * sizeof(halo_timepoint_t), alignof(halo_timepoint_t)));
    if (timepoints == nullptr) {
      return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                   "out of memory for a multi-wait");
    }
  }
  MultiWaiter waiter{host};
  for (size_t i = 0; i < count; ++i) {
    timepoints[i] = halo_timepoint_t{};
    timepoints[i].struct_size = sizeof(halo_timepoint_t);
    timepoints[i].value = values[i];
    timepoints[i].callback = &MultiWaiter::on_timepoint;
    timepoints[i].user_data = &waiter;
    // Cannot fail: the values were checked by libhalo and the callback is set.
    host.free(Semaphore::cast(semaphores[i])->timeline.acquire(&timepoints[i]));
  }
  for (;;) {
    uint32_t epoch = waiter.epoch.load(std::memory_order_acquire);
    if (waiter.failure.load(std::memory_order_acquire) != nullptr ||
        waiter.satisfied(mode, count)) {
      break;
    }
    if (!sdk::futex_wait(&waiter.epoch, epoch, deadline)) break;
  }
  for (size_t i = 0; i < count; ++i) {
    Semaphore::cast(semaphores[i])->timeline.cancel(&timepoints[i]);
  }
  if (timepoints != inline_timepoints) host.deallocate(timepoints);
  // Every callback has finished: the waiter's state is final.
  halo_status_t failure = waiter.failure.load(std::memory_order_acquire);
  if (failure != nullptr) return failure;
  if (waiter.satisfied(mode, count)) return HALO_OK;
  return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

}  // namespace

halo_status_t WaitableTimeline::settle(uint64_t payload, uint64_t value,
                                       bool* done) noexcept {
  if (payload >= HALO_SEMAPHORE_FAILURE_VALUE) {
    *done = true;
    return clone_failure();
  }
  *done = payload >= value;
  return HALO_OK;
}

halo_status_t WaitableTimeline::wait_slow(uint64_t value,
                                          halo_time_ns_t deadline) noexcept {
  bool done = false;
  halo_status_t result = settle(payload(), value, &done);
  if (done) return result;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) return deadline_exceeded_;
  for (;;) {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    uint32_t epoch = epoch_.load(std::memory_order_seq_cst);
    result = settle(payload(std::memory_order_seq_cst), value, &done);
    bool in_time = done || sdk::futex_wait(&epoch_, epoch, deadline);
    waiters_.fetch_sub(1, std::memory_order_relaxed);
    if (done) return result;
    // Whether woken or timed out, the payload decides first: a wait whose
    // value arrived right at the deadline still succeeds.
    result = settle(payload(), value, &done);
    if (done) return result;
    if (!in_time) return deadline_exceeded_;
  }
}

void WaitableTimeline::on_changed(uint64_t) noexcept {
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  sdk::futex_wake_all(&epoch_);
}

Semaphore::Semaphore(sdk::Host host, halo_device_t* device,
                     uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable)),
      host(host),
      device(device),
      timeline(host, initial_value) {
  host.retain(sdk::as_object(device));
}

Semaphore::~Semaphore() { host.release(sdk::as_object(device)); }

halo_status_t Semaphore::create(sdk::Host host, halo_device_t* device,
                                uint64_t initial_value,
                                halo_semaphore_t** out_semaphore) noexcept {
  if (out_semaphore == nullptr) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "out_semaphore is NULL");
  }
  *out_semaphore = nullptr;
  if (initial_value > HALO_SEMAPHORE_MAX_VALUE) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "initial semaphore value %llu is above HALO_SEMAPHORE_MAX_VALUE",
        static_cast<unsigned long long>(initial_value));
  }
  return sdk::guard(host, [&] {
    *out_semaphore =
        host.make<Semaphore>(host, device, initial_value)->handle();
  });
}

bool Semaphore::is_cpu_semaphore(halo_semaphore_t* semaphore) noexcept {
  return semaphore != nullptr &&
         sdk::as_object(semaphore)->vtable == &kSemaphoreVtable.object;
}

halo_status_t wait_semaphores(sdk::Host host, halo_wait_mode_t mode,
                              size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept {
  if (count == 0) return HALO_OK;
  if (count == 1) {
    return Semaphore::cast(semaphores[0])->timeline.wait(values[0], deadline);
  }
  bool met = false;
  halo_status_t result = poll_all(mode, count, semaphores, values, &met);
  if (met) return result;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) {
    return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
  return block_on_timepoints(host, mode, count, semaphores, values, deadline);
}

}  // namespace halo::cpu
