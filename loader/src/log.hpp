// Loader diagnostics, shown on stderr per HALO_LOADER_DEBUG.
#pragma once

#include "halo/plugin.h"

namespace halo::loader {

// Reads HALO_LOADER_DEBUG (error|warn|info|debug; unset means silent) again;
// called at every registry creation so tests and tools can change it.
void refresh_log_level();

// True when |level| messages are shown.
bool log_enabled(halo_log_level_t level);

// Prints "halo: <level>: <message>" to stderr when |level| is enabled.
void log_message(halo_log_level_t level, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// Prints "halo: <level>: <message>" to stderr whatever HALO_LOADER_DEBUG
// says: for validation reports, which were asked for.
void log_always(halo_log_level_t level, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

}  // namespace halo::loader
