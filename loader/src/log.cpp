#include "log.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace halo::loader {
namespace {

// 0 = silent. Relaxed is enough: a stale level only changes what is printed.
std::atomic<int> g_log_level{0};

const char* level_name(halo_log_level_t level) {
  switch (level) {
    case HALO_LOG_LEVEL_ERROR: return "error";
    case HALO_LOG_LEVEL_WARN: return "warn";
    case HALO_LOG_LEVEL_INFO: return "info";
    case HALO_LOG_LEVEL_DEBUG: return "debug";
  }
  return "log";
}

}  // namespace

void refresh_log_level() {
  const char* value = secure_getenv("HALO_LOADER_DEBUG");
  int level = 0;
  if (value != nullptr) {
    for (int candidate = HALO_LOG_LEVEL_ERROR; candidate <= HALO_LOG_LEVEL_DEBUG;
         ++candidate) {
      if (std::strcmp(value, level_name(static_cast<halo_log_level_t>(
                                 candidate))) == 0) {
        level = candidate;
      }
    }
    // Any other non-empty value ("1", "all") means everything.
    if (level == 0 && value[0] != '\0') level = HALO_LOG_LEVEL_DEBUG;
  }
  g_log_level.store(level, std::memory_order_relaxed);
}

bool log_enabled(halo_log_level_t level) {
  return static_cast<int>(level) <= g_log_level.load(std::memory_order_relaxed);
}

namespace {

void print(halo_log_level_t level, const char* format, va_list args) {
  // Validation reports list every submission of a cycle or every leaked
  // object: room for long ones, cut rather than lost beyond it.
  char buffer[8192];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  std::fprintf(stderr, "halo: %s: %s\n", level_name(level), buffer);
}

}  // namespace

void log_message(halo_log_level_t level, const char* format, ...) {
  if (!log_enabled(level)) return;
  va_list args;
  va_start(args, format);
  print(level, format, args);
  va_end(args);
}

void log_always(halo_log_level_t level, const char* format, ...) {
  va_list args;
  va_start(args, format);
  print(level, format, args);
  va_end(args);
}

}  // namespace halo::loader
