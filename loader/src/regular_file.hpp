// Plugin files are opened only when they are regular files (DESIGN.md §6):
// opening a FIFO waits for a writer for ever, and a folder or device named
// like a manifest or library is never one.
#pragma once

#include <string>

#include "halo/status.h"

namespace halo::loader {

// Returns NULL when |path| (symbolic links followed) is a regular file; else
// NOT_FOUND "<what> <path> does not exist" or INVALID_ARGUMENT "<what>
// <path> is a FIFO, not a regular file" (or a folder, a device, …). Opens
// nothing.
halo_status_t require_regular_file(const std::string& path, const char* what);

// Reads the whole regular file at |path| into |out_text| without ever
// blocking on it: the type is checked before opening, and again on the open
// descriptor, so a file swapped for a FIFO in between is refused too.
// Statuses name |what| and the path. Throws std::bad_alloc.
halo_status_t read_regular_file(const std::string& path, const char* what,
                                std::string* out_text);

}  // namespace halo::loader
