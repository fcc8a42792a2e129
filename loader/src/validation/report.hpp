// Validation reports: one place that formats a report, logs it and, in fatal
// mode, aborts with it.
#pragma once

#include <string>

#include "halo/status.h"
#include "switch.hpp"

namespace halo::loader::validation {

// printf into a std::string. Never throws: on failure it returns what it
// could.
std::string format(const char* format, ...) noexcept
    __attribute__((format(printf, 1, 2)));

// Reports |message| for an object of a registry validating per |settings|:
// logs "halo: error: validation: <message>" through the loader log, shown
// whatever HALO_LOADER_DEBUG says (asking for validation is asking to see its
// reports); in fatal mode then aborts.
void report(const RegistryValidation& settings,
            const std::string& message) noexcept;

// report(), then a status of |code| with |message| for the caller.
halo_status_t report_status(const RegistryValidation& settings,
                            halo_status_code_t code,
                            const std::string& message) noexcept;

}  // namespace halo::loader::validation
