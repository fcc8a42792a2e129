// The validation switch (DESIGN.md §6, "Validation"): whether any registry
// validates, and each validating registry's settings.
//
// Every public call passes check_object, which asks enabled() first: with no
// validating registry in the process that is one relaxed load of a flag that
// never changes, so validation costs one predictable branch when off.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "halo/registry.h"

namespace halo::loader::validation {

enum class Mode {
  kOff,
  kReport,  // Log each report and return it as a status.
  kFatal,   // Print each report to stderr and abort.
};

// The settings of one validating registry, shared by every object attributed
// to it (objects outlive their registry).
struct RegistryValidation {
  Mode mode = Mode::kReport;
  // How long an infinite host wait waits before it is checked for a value
  // that nothing queued will signal.
  int64_t grace_ms = 1000;
};

namespace detail {
extern std::atomic<bool> g_enabled;
}  // namespace detail

// True once any registry with validation was created in the process. Sticky:
// objects of a validating registry stay checked after the registry is gone.
inline bool enabled() noexcept {
  return detail::g_enabled.load(std::memory_order_relaxed);
}

// Reads HALO_VALIDATION (1: report, fatal: abort; empty or 0: off; any other
// value is a loader warning and off) and HALO_VALIDATION_GRACE_MS, and
// combines them with |flags| (HALO_REGISTRY_FLAG_VALIDATION*). Returns the
// registry's settings, or NULL when it does not validate; otherwise turns
// enabled() on for good.
std::shared_ptr<const RegistryValidation> configure_registry(
    halo_registry_flags_t flags);

}  // namespace halo::loader::validation
