// Statuses that cross from a plugin into libhalo (DESIGN.md §6, "each
// plugin fails alone"): each one a plugin returns is checked to be a status
// libhalo made, and a plugin's faults are reported naming the plugin.
#pragma once

#include <utility>

#include "halo/status.h"
#include "status_object.hpp"

namespace halo::loader {

// Returns INTERNAL "|function|: plugin '<name>' <formatted text>", naming the
// plugin whose library holds |code| (an entry point of its vtable). Never
// throws; allocates only to build the status.
halo_status_t plugin_fault(const void* code, const char* function,
                           const char* format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// The fault for a status a plugin made itself (not through the host
// interface), which libhalo neither reads nor frees.
halo_status_t foreign_status(const void* code, const char* function) noexcept;

// Returns |status|, returned by the plugin entry |code|, when it is OK or a
// status libhalo made; else foreign_status. Inline: every query and poll
// passes through it, and a miss costs one load and compare.
inline halo_status_t plugin_status(halo_status_t status, const void* code,
                                   const char* function) noexcept {
  if (status == nullptr || is_libhalo_status(status)) [[likely]] {
    return status;
  }
  return foreign_status(code, function);
}

// Calls the plugin entry |entry| with |args| and checks the status it
// returns (plugin_status).
template <typename... Params, typename... Args>
halo_status_t call_plugin(const char* function,
                          halo_status_t (*entry)(Params...), Args&&... args) {
  return plugin_status(entry(std::forward<Args>(args)...),
                       reinterpret_cast<const void*>(entry), function);
}

}  // namespace halo::loader
