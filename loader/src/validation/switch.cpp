#include "switch.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "../log.hpp"

namespace halo::loader::validation {
namespace detail {
std::atomic<bool> g_enabled{false};
}  // namespace detail

namespace {

// The mode HALO_VALIDATION asks for.
Mode mode_from_environment() {
  const char* value = secure_getenv("HALO_VALIDATION");
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "0") == 0) {
    return Mode::kOff;
  }
  if (std::strcmp(value, "1") == 0) return Mode::kReport;
  if (std::strcmp(value, "fatal") == 0) return Mode::kFatal;
  log_message(HALO_LOG_LEVEL_WARN,
              "HALO_VALIDATION='%s' is not 1, fatal or 0; validation stays "
              "as the registry flags say",
              value);
  return Mode::kOff;
}

// HALO_VALIDATION_GRACE_MS, or |fallback| when unset or not a number of
// milliseconds.
int64_t grace_from_environment(int64_t fallback) {
  const char* value = secure_getenv("HALO_VALIDATION_GRACE_MS");
  if (value == nullptr || value[0] == '\0') return fallback;
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value, &end, 10);
  if (errno != 0 || *end != '\0' || parsed < 0) {
    log_message(HALO_LOG_LEVEL_WARN,
                "HALO_VALIDATION_GRACE_MS='%s' is not a number of "
                "milliseconds; using %lld",
                value, static_cast<long long>(fallback));
    return fallback;
  }
  return parsed;
}

}  // namespace

std::shared_ptr<const RegistryValidation> configure_registry(
    halo_registry_flags_t flags) {
  Mode mode = mode_from_environment();
  if ((flags & HALO_REGISTRY_FLAG_VALIDATION) != 0 && mode == Mode::kOff) {
    mode = Mode::kReport;
  }
  if ((flags & HALO_REGISTRY_FLAG_VALIDATION_FATAL) != 0) mode = Mode::kFatal;
  if (mode == Mode::kOff) return nullptr;
  auto settings = std::make_shared<RegistryValidation>();
  settings->mode = mode;
  settings->grace_ms = grace_from_environment(settings->grace_ms);
  detail::g_enabled.store(true, std::memory_order_relaxed);
  return settings;
}

}  // namespace halo::loader::validation
