#include "sanitizer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "self_paths.hpp"

namespace halo::cts {
namespace {

// Set in the re-executed runner's environment: which runtime it carries, and
// the options its workers get.
constexpr char kActiveVariable[] = "HALO_CTS_SANITIZE";
constexpr char kWorkerOptionsVariable[] = "HALO_CTS_SANITIZER_OPTIONS";

struct Sanitizer {
  const char* name;            // --sanitize's value.
  const char* title;           // For messages.
  const char* built_runtime;   // What the compiler that built halo-cts reports.
  const char* options_variable;
  // A report fails the worker at once, with the report in its output (the
  // runner quotes it). AddressSanitizer: intercept_tls_get_addr=0, as GCC
  // 13's runtime and older misread the thread-local storage of dlopen'ed
  // modules at exit, and a clean case would then crash. ThreadSanitizer:
  // ignore_noninstrumented_modules=1, as halo-cts and libhalo are not
  // instrumented, so the synchronisation of their atomics is invisible and
  // their intercepted accesses (memcpy, free) would be reported as races.
  const char* worker_options;
  // The runner loads plugins too, but is not under test: its own leaks and
  // races are not the plugin's findings.
  const char* runner_options;
};

constexpr Sanitizer kSanitizers[] = {
    {"address", "AddressSanitizer", HALO_CTS_ASAN_RUNTIME, "ASAN_OPTIONS",
     "halt_on_error=1:detect_leaks=1:intercept_tls_get_addr=0",
     "detect_leaks=0:intercept_tls_get_addr=0"},
    {"thread", "ThreadSanitizer", HALO_CTS_TSAN_RUNTIME, "TSAN_OPTIONS",
     // atexit_sleep_ms=0: the runtime's default second of sleep in every
     // exit, for threads still running, would cost a second a case; a
     // worker joins its threads before it exits.
     "halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:"
     "atexit_sleep_ms=0",
     "report_bugs=0"},
};

const Sanitizer* find_sanitizer(const std::string& name) {
  for (const Sanitizer& sanitizer : kSanitizers) {
    if (name == sanitizer.name) return &sanitizer;
  }
  return nullptr;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// |first| and |second| as one option string; later options win, so the
// user's own (suppressions, say) follow the workers' defaults, and the
// runner's few overrides follow the user's.
std::string join_options(const std::string& first, const std::string& second) {
  if (first.empty()) return second;
  if (second.empty()) return first;
  return first + ":" + second;
}

}  // namespace

std::string enter_sanitizer(const Options& options, char** argv) {
  const Sanitizer* sanitizer = find_sanitizer(options.sanitize);
  if (sanitizer == nullptr) {
    return "--sanitize '" + options.sanitize + "': expected address or thread";
  }
  const std::string built_with = HALO_CTS_BUILT_SANITIZER;
  if (!built_with.empty() && built_with != options.sanitize) {
    return std::string("--sanitize ") + sanitizer->name + ": this halo-cts is built with " +
           "-fsanitize=" + built_with + ", whose runtime cannot share a process with " +
           sanitizer->title + "; use a halo-cts built without a sanitizer";
  }
  if (environment(kActiveVariable) == options.sanitize || built_with == options.sanitize) {
    // Re-executed, or instrumented already: only the workers' options remain.
    std::string worker_options = environment(kWorkerOptionsVariable);
    if (worker_options.empty()) {
      worker_options = join_options(sanitizer->worker_options,
                                    environment(sanitizer->options_variable));
    }
    setenv(sanitizer->options_variable, worker_options.c_str(), 1);
    return {};
  }
  const std::string runtime = options.sanitizer_runtime.empty()
                                  ? std::string(sanitizer->built_runtime)
                                  : options.sanitizer_runtime;
  std::error_code error;
  if (runtime.empty() || !std::filesystem::is_regular_file(runtime, error)) {
    return std::string("--sanitize ") + sanitizer->name + ": cannot find the " +
           sanitizer->title + " runtime" + (runtime.empty() ? "" : " " + runtime) +
           "; name it with --sanitizer-runtime PATH";
  }
  const std::string user = environment(sanitizer->options_variable);
  const std::string preload = environment("LD_PRELOAD");
  setenv(kWorkerOptionsVariable, join_options(sanitizer->worker_options, user).c_str(), 1);
  setenv(sanitizer->options_variable, join_options(user, sanitizer->runner_options).c_str(), 1);
  setenv("LD_PRELOAD", (preload.empty() ? runtime : runtime + ":" + preload).c_str(), 1);
  // Plugins stay mapped, so that reports name their frames (DESIGN.md §6).
  setenv("HALO_DISABLE_UNLOAD", "1", 0);
  setenv(kActiveVariable, options.sanitize.c_str(), 1);
  const std::string self = self_path();
  execv(self.c_str(), argv);
  return "cannot run " + self + " again under " + sanitizer->title + ": " +
         std::strerror(errno);
}

}  // namespace halo::cts
