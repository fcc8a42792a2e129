#include "report.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "../log.hpp"

namespace halo::loader::validation {

std::string format(const char* format, ...) noexcept {
  std::string text;
  try {
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    const int length = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    if (length > 0) {
      text.resize(static_cast<size_t>(length) + 1);
      std::vsnprintf(text.data(), text.size(), format, args);
      text.resize(static_cast<size_t>(length));
    }
    va_end(args);
  } catch (...) {
    // Out of memory: the report is lost, never the caller.
  }
  return text;
}

void report(const RegistryValidation& settings,
            const std::string& message) noexcept {
  log_always(HALO_LOG_LEVEL_ERROR, "validation: %s", message.c_str());
  if (settings.mode == Mode::kFatal) {
    std::fprintf(stderr,
                 "halo: validation is fatal (HALO_VALIDATION=fatal or "
                 "HALO_REGISTRY_FLAG_VALIDATION_FATAL): aborting\n");
    std::fflush(stderr);
    std::abort();
  }
}

halo_status_t report_status(const RegistryValidation& settings,
                            halo_status_code_t code,
                            const std::string& message) noexcept {
  report(settings, message);
  return halo_status_create(code, message.c_str());
}

}  // namespace halo::loader::validation
