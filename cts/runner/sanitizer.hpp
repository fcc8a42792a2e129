// halo-cts --sanitize address|thread: the suite run again under a
// sanitizer's runtime, so that a plugin built with -fsanitize=… is checked
// by the stock halo-cts, which is not (cts/README.md, "Sanitizers").
#pragma once

#include <string>

#include "options.hpp"

namespace halo::cts {

// Puts this run under the runtime of |options.sanitize|. The runner itself
// must carry the runtime before it loads an instrumented plugin, and a
// runtime can only be preloaded, so the first call re-executes halo-cts
// with LD_PRELOAD set and does not return; in the re-executed runner it
// sets the options the workers inherit and returns "". Returns why not
// (exit code 2): no runtime found, or a halo-cts built with another
// sanitizer. |argv| is main's.
std::string enter_sanitizer(const Options& options, char** argv);

}  // namespace halo::cts
