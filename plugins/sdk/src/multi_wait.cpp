// The multi-semaphore wait through queries and timepoints.
#include "halo/sdk/multi_wait.hpp"

#include <atomic>

#include "halo/sdk/futex.hpp"

namespace halo::sdk {
namespace {

// Timepoints a multi-wait keeps on its stack before asking the allocator.
constexpr size_t kInlineTimepoints = 8;

bool is_met(halo_wait_mode_t mode, size_t reached, size_t count) noexcept {
  return mode == HALO_WAIT_MODE_ALL ? reached == count : reached > 0;
}

// Shared by a multi-wait's timepoint callbacks and the waiting thread, on
// the waiting thread's stack. Cancelling every timepoint before returning
// guarantees that no callback touches it afterwards.
struct Waiter {
  Host host;
  MultiWaitSemaphores* semaphores;
  // The registered timepoints, index for index with the pairs.
  const halo_timepoint_t* timepoints;
  std::atomic<uint32_t> epoch{0};
  std::atomic<size_t> reached{0};
  std::atomic<halo_status_t> failure{nullptr};

  static void on_timepoint(void* user_data, halo_timepoint_t* timepoint,
                           halo_status_t status) noexcept {
    auto* waiter = static_cast<Waiter*>(user_data);
    if (status != nullptr) {
      const auto index = static_cast<size_t>(timepoint - waiter->timepoints);
      status = waiter->semaphores->take_failure(index, status);
      halo_status_t expected = nullptr;
      if (!waiter->failure.compare_exchange_strong(expected, status)) {
        waiter->host.free(status);  // The first failure is reported.
      }
    } else {
      waiter->reached.fetch_add(1, std::memory_order_acq_rel);
    }
    waiter->epoch.fetch_add(1, std::memory_order_acq_rel);
    futex_wake_one(&waiter->epoch);
  }
};

// Queries every pair once without blocking. Every pair is looked at even in
// ANY mode once one is reached, so a failed semaphore anywhere in the list
// wins. Returns the status that ends the wait with |*met| true, or OK with
// |*met| telling whether the mode is met.
halo_status_t poll(halo_wait_mode_t mode, size_t count, const uint64_t* values,
                   MultiWaitSemaphores& semaphores, bool* met) noexcept {
  size_t reached = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t payload = 0;
    halo_status_t status = semaphores.query(i, &payload);
    if (status != HALO_OK) {
      *met = true;
      return status;
    }
    if (payload >= values[i]) ++reached;
  }
  *met = is_met(mode, reached, count);
  return HALO_OK;
}

// Blocks on one timepoint per pair; see wait_semaphores.
halo_status_t block(Host host, halo_wait_mode_t mode, size_t count,
                    const uint64_t* values, halo_time_ns_t deadline,
                    MultiWaitSemaphores& semaphores) noexcept {
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
  Waiter waiter{host, &semaphores, timepoints};
  size_t registered = 0;
  halo_status_t refused = HALO_OK;
  for (; registered < count; ++registered) {
    halo_timepoint_t& timepoint = timepoints[registered];
    timepoint = halo_timepoint_t{};
    timepoint.struct_size = sizeof(halo_timepoint_t);
    timepoint.value = values[registered];
    timepoint.callback = &Waiter::on_timepoint;
    timepoint.user_data = &waiter;
    refused = semaphores.acquire_timepoint(registered, &timepoint);
    if (refused != HALO_OK) break;
  }
  while (refused == HALO_OK) {
    const uint32_t epoch = waiter.epoch.load(std::memory_order_acquire);
    if (waiter.failure.load(std::memory_order_acquire) != nullptr ||
        is_met(mode, waiter.reached.load(std::memory_order_acquire), count)) {
      break;
    }
    if (!futex_wait(&waiter.epoch, epoch, deadline)) break;
  }
  for (size_t i = 0; i < registered; ++i) {
    semaphores.cancel_timepoint(i, &timepoints[i]);
  }
  if (timepoints != inline_timepoints) host.deallocate(timepoints);
  // Every callback has finished: the waiter's state is final, and it decides
  // over the deadline and over a refused registration, as a value that
  // arrived meanwhile still counts.
  halo_status_t failure = waiter.failure.load(std::memory_order_acquire);
  if (failure != nullptr) {
    host.free(refused);
    return failure;
  }
  if (is_met(mode, waiter.reached.load(std::memory_order_acquire), count)) {
    host.free(refused);
    return HALO_OK;
  }
  if (refused != HALO_OK) return refused;
  return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

}  // namespace

halo_status_t wait_semaphores(Host host, halo_wait_mode_t mode, size_t count,
                              const uint64_t* values, halo_time_ns_t deadline,
                              MultiWaitSemaphores& semaphores) noexcept {
  if (count == 0) return HALO_OK;
  bool met = false;
  halo_status_t result = poll(mode, count, values, semaphores, &met);
  if (met) return result;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) {
    return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
  }
  return block(host, mode, count, values, deadline, semaphores);
}

}  // namespace halo::sdk
