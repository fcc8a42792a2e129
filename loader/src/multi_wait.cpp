#include "multi_wait.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <vector>

#include "check.hpp"
#include "halo/device.h"
#include "plugin_status.hpp"

namespace halo::loader {
namespace {

constexpr char kFunction[] = "halo_semaphores_wait";

const halo_semaphore_vtable_t* semaphore_vtable(halo_semaphore_t* semaphore) {
  return vtable_of<halo_semaphore_vtable_t>(semaphore);
}

// The device owning every semaphore, or NULL when they differ.
halo_device_t* common_device(size_t count, halo_semaphore_t* const* semaphores) {
  halo_device_t* device = semaphore_vtable(semaphores[0])->device(semaphores[0]);
  for (size_t i = 1; i < count; ++i) {
    if (semaphore_vtable(semaphores[i])->device(semaphores[i]) != device) {
      return nullptr;
    }
  }
  return device;
}

// Shared by the timepoint callbacks and the waiting thread.
struct Waiter {
  // The waited semaphores and their timepoints, index for index: a failure
  // status is checked against the plugin of its semaphore.
  halo_semaphore_t* const* semaphores;
  const halo_timepoint_t* timepoints;
  std::atomic<uint32_t> epoch{0};
  std::atomic<size_t> reached{0};
  std::atomic<halo_status_t> failure{nullptr};

  static void on_timepoint(void* user_data, halo_timepoint_t* timepoint,
                           halo_status_t status) {
    auto* waiter = static_cast<Waiter*>(user_data);
    if (status != nullptr) {
      halo_semaphore_t* semaphore =
          waiter->semaphores[timepoint - waiter->timepoints];
      status = plugin_status(
          status,
          reinterpret_cast<const void*>(
              semaphore_vtable(semaphore)->acquire_timepoint),
          kFunction);
      halo_status_t expected = nullptr;
      if (!waiter->failure.compare_exchange_strong(expected, status)) {
        halo_status_free(status);  // The first failure is reported.
      }
    } else {
      waiter->reached.fetch_add(1, std::memory_order_acq_rel);
    }
    waiter->epoch.fetch_add(1, std::memory_order_release);
    syscall(SYS_futex, &waiter->epoch, FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
  }
};

// Blocks while |word| == |expected|, until |deadline|. Returns false on
// timeout.
bool futex_wait_until(std::atomic<uint32_t>* word, uint32_t expected,
                      halo_time_ns_t deadline) {
  timespec absolute;
  timespec* timeout = nullptr;
  if (deadline != HALO_DEADLINE_INFINITE_FUTURE) {
    if (deadline <= halo_time_now_ns()) return false;
    absolute.tv_sec = deadline / 1000000000;
    absolute.tv_nsec = deadline % 1000000000;
    timeout = &absolute;
  }
  // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline.
  long result = syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, expected,
                        timeout, nullptr, FUTEX_BITSET_MATCH_ANY);
  return !(result == -1 && errno == ETIMEDOUT);
}

// Polls every pair without blocking or allocating. Returns OK when the mode is
// met, a failure status, or DEADLINE_EXCEEDED to mean "not yet". Every pair
// is looked at even in ANY mode once one is reached: a failed semaphore
// anywhere in the list wins over a reached one (DESIGN.md §4).
halo_status_t poll_all(halo_wait_mode_t mode, size_t count,
                       halo_semaphore_t* const* semaphores,
                       const uint64_t* values) {
  size_t reached = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t value = 0;
    HALO_RETURN_IF_ERROR(call_plugin(kFunction,
                                     semaphore_vtable(semaphores[i])->query,
                                     semaphores[i], &value));
    if (value >= values[i]) ++reached;
  }
  if (reached == count || (mode == HALO_WAIT_MODE_ANY && reached > 0)) {
    return nullptr;
  }
  // A poll must not allocate, even to say "not yet".
  return halo_status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

halo_status_t wait_through_timepoints(halo_wait_mode_t mode, size_t count,
                                      halo_semaphore_t* const* semaphores,
                                      const uint64_t* values,
                                      halo_time_ns_t deadline) {
  std::vector<halo_timepoint_t> timepoints(count);
  Waiter waiter{semaphores, timepoints.data()};
  size_t registered = 0;
  halo_status_t status = nullptr;
  for (; registered < count; ++registered) {
    halo_timepoint_t& timepoint = timepoints[registered];
    timepoint.struct_size = sizeof(timepoint);
    timepoint.value = values[registered];
    timepoint.callback = &Waiter::on_timepoint;
    timepoint.user_data = &waiter;
    status = call_plugin(kFunction,
                         semaphore_vtable(semaphores[registered])
                             ->acquire_timepoint,
                         semaphores[registered], &timepoint);
    if (status != nullptr) break;
  }
  const size_t needed = mode == HALO_WAIT_MODE_ANY ? 1 : count;
  while (status == nullptr) {
    const uint32_t epoch = waiter.epoch.load(std::memory_order_acquire);
    if (waiter.failure.load(std::memory_order_acquire) != nullptr ||
        waiter.reached.load(std::memory_order_acquire) >= needed) {
      break;
    }
    if (!futex_wait_until(&waiter.epoch, epoch, deadline)) {
      status = halo_status_format(HALO_STATUS_DEADLINE_EXCEEDED,
                                  "%s: the deadline passed", kFunction);
    }
  }
  // After each cancel the callback has either finished or will never run, so
  // |waiter| and |timepoints| may go once every one is cancelled.
  for (size_t i = 0; i < registered; ++i) {
    semaphore_vtable(semaphores[i])->cancel_timepoint(semaphores[i],
                                                      &timepoints[i]);
  }
  // Every callback has finished: the waiter's state is final, and it decides
  // over the deadline, as a value that arrived right at it still counts.
  halo_status_t failure = waiter.failure.exchange(nullptr);
  if (failure != nullptr) {
    halo_status_free(status);
    return failure;
  }
  if (waiter.reached.load(std::memory_order_acquire) >= needed) {
    halo_status_free(status);
    return nullptr;
  }
  return status;
}

}  // namespace

halo_status_t wait_semaphores(halo_wait_mode_t mode, size_t count,
                              halo_semaphore_t* const* semaphores,
                              const uint64_t* values, halo_time_ns_t deadline) {
  if (count == 1) {
    return call_plugin(kFunction, semaphore_vtable(semaphores[0])->wait,
                       semaphores[0], values[0], deadline);
  }
  halo_device_t* device = common_device(count, semaphores);
  if (device != nullptr) {
    return call_plugin(kFunction,
                       vtable_of<halo_device_vtable_t>(device)->wait_semaphores,
                       device, mode, count, semaphores, values, deadline);
  }
  halo_status_t status = poll_all(mode, count, semaphores, values);
  if (halo_status_code(status) != HALO_STATUS_DEADLINE_EXCEEDED ||
      deadline == HALO_DEADLINE_INFINITE_PAST) {
    return status;
  }
  halo_status_free(status);
  return wait_through_timepoints(mode, count, semaphores, values, deadline);
}

}  // namespace halo::loader
