// Helpers shared by the timepoint case files: a probe that counts the calls
// of one registration, timepoint storage aimed at it, and a cancel that
// fails the case on an error status.
#pragma once

#include <atomic>
#include <string>

#include "case_helpers.hpp"

namespace halo::cts {

// Counts the calls of one registration and records the status it got.
struct Probe {
  std::atomic<int> calls{0};
  std::atomic<int> failures{0};
  std::atomic<bool> finished{false};
  std::atomic<int> code{HALO_STATUS_OK};
  std::string message;  // Written by the first failing call only.

  static void callback(void* user_data, halo_timepoint_t*, halo_status_t status) {
    auto* probe = static_cast<Probe*>(user_data);
    if (status != nullptr) {
      if (probe->failures.fetch_add(1) == 0) {
        probe->message = halo_status_message(status);
        probe->code.store(halo_status_code(status));
      }
      halo_status_free(status);  // The callback owns it.
    }
    probe->calls.fetch_add(1);
    probe->finished.store(true);
  }
};

// Storage for a registration of |value| that calls |callback| with
// |user_data|.
inline halo_timepoint_t make_timepoint(uint64_t value, halo_timepoint_callback_t callback,
                                       void* user_data) {
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = value;
  timepoint.callback = callback;
  timepoint.user_data = user_data;
  return timepoint;
}

inline halo_timepoint_t make_timepoint(uint64_t value, Probe* probe) {
  return make_timepoint(value, &Probe::callback, probe);
}

// Cancels |timepoint| and returns out_cancelled; fails the case on an error.
inline bool cancel(halo_semaphore_t* semaphore, halo_timepoint_t* timepoint) {
  bool cancelled = false;
  halo_status_t status =
      halo_semaphore_cancel_timepoint(semaphore, timepoint, &cancelled);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_semaphore_cancel_timepoint returned " + take_status_text(status));
  }
  return cancelled;
}

}  // namespace halo::cts
