#include "host_wait.hpp"

#include <memory>
#include <string>

#include "../check.hpp"
#include "../multi_wait.hpp"
#include "../plugin_status.hpp"
#include "object_table.hpp"
#include "report.hpp"
#include "submission_tracker.hpp"

namespace halo::loader::validation {
namespace {

halo_time_ns_t grace_deadline(const RegistryValidation& settings) {
  const int64_t limit_ms = INT64_MAX / 1000000;
  const int64_t grace_ms =
      settings.grace_ms > limit_ms ? limit_ms : settings.grace_ms;
  // 0 ms still waits an instant, rather than a poll that any wait passes.
  return halo_deadline_after_ns(grace_ms == 0 ? 1 : grace_ms * 1000000);
}

// True when |status| is DEADLINE_EXCEEDED (freed); else the caller returns
// it.
bool timed_out(halo_status_t status) {
  if (status == nullptr ||
      halo_status_code(status) != HALO_STATUS_DEADLINE_EXCEEDED) {
    return false;
  }
  halo_status_free(status);
  return true;
}

// The settings of the first semaphore of a validating registry, if any.
std::shared_ptr<const RegistryValidation> first_settings(
    size_t count, halo_semaphore_t* const* semaphores) {
  for (size_t i = 0; i < count; ++i) {
    if (auto settings = settings_of(semaphores[i])) return settings;
  }
  return nullptr;
}

// Reports the timepoints of a multi-wait that nothing queued will reach,
// when that blocks the wait: any of them for ALL, all of them for ANY.
void report_blocked_waits(const RegistryValidation& settings,
                          halo_wait_mode_t mode, size_t count,
                          halo_semaphore_t* const* semaphores,
                          const uint64_t* values,
                          const char* function) noexcept {
  try {
    std::string why;
    size_t blocked = 0;
    for (size_t i = 0; i < count; ++i) {
      std::string one = unsignalled_wait(semaphores[i], values[i]);
      if (one.empty()) continue;
      ++blocked;
      why += format("%ssemaphores[%zu]: %s", why.empty() ? "" : "; ", i,
                    one.c_str());
    }
    const bool stuck =
        mode == HALO_WAIT_MODE_ANY ? blocked == count : blocked > 0;
    if (!stuck) return;
    report(settings,
           format("%s: an infinite wait (%s) is still blocked after %lld ms: "
                  "%s; still waiting (another thread may signal them)",
                  function, mode == HALO_WAIT_MODE_ANY ? "ANY" : "ALL",
                  static_cast<long long>(settings.grace_ms), why.c_str()));
  } catch (...) {
    // Out of memory: unreported.
  }
}

}  // namespace

halo_status_t wait_forever(halo_semaphore_t* semaphore, uint64_t value,
                           const char* function) noexcept {
  const auto wait = vtable_of<halo_semaphore_vtable_t>(semaphore)->wait;
  std::shared_ptr<const RegistryValidation> settings = settings_of(semaphore);
  if (settings != nullptr) {
    halo_status_t status = call_plugin(function, wait, semaphore, value,
                                       grace_deadline(*settings));
    if (!timed_out(status)) return status;
    std::string why = unsignalled_wait(semaphore, value);
    if (!why.empty()) {
      report(*settings,
             format("%s: an infinite wait is still blocked after %lld ms: %s; "
                    "still waiting (another thread may signal it)",
                    function, static_cast<long long>(settings->grace_ms),
                    why.c_str()));
    }
  }
  return call_plugin(function, wait, semaphore, value,
                     HALO_DEADLINE_INFINITE_FUTURE);
}

halo_status_t wait_all_or_any_forever(halo_wait_mode_t mode, size_t count,
                                      halo_semaphore_t* const* semaphores,
                                      const uint64_t* values,
                                      const char* function) {
  std::shared_ptr<const RegistryValidation> settings =
      first_settings(count, semaphores);
  if (settings != nullptr) {
    halo_status_t status = wait_semaphores(mode, count, semaphores, values,
                                           grace_deadline(*settings));
    if (!timed_out(status)) return status;
    report_blocked_waits(*settings, mode, count, semaphores, values,
                         function);
  }
  return wait_semaphores(mode, count, semaphores, values,
                         HALO_DEADLINE_INFINITE_FUTURE);
}

}  // namespace halo::loader::validation
